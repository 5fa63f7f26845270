"""A package whose helpers are traced only because a jitted step in another module calls them."""
