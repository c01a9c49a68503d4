"""The logic each notebook calls, tested like any other code (one module per analysis)."""
