"""pytest plugin (stub until the watch issue fills it in)."""
