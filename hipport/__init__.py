"""hipport: port CUDA source trees to HIP.

Data flows one way through one module per stage:

    discover -> parse -> analyze (match rules) -> edits and findings -> emit (files, CMake, reports)

``hipport.convert.convert_tree`` runs the whole pipeline; ``hipport.cli`` is the command line.
"""

__version__ = "0.1.0"
