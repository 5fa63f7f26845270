"""One result type per command, each a Record with save/load and a registered ``kind``.

``load_result(path)`` reads any saved result back into its class, which is how
``jitscope report`` re-renders a saved JSON file.
"""

from ._base import FORMAT_VERSION as FORMAT_VERSION
from ._base import Result as Result
from ._base import load_result as load_result
from ._base import result_class as result_class
