"""External data: the registry (URL, sha256, license, citation) and a verifying, mirror-aware fetcher."""
from ._fetch import FetchError, cache_dir, fetch, mirror_dir, sha256_of, try_fetch
from ._registry import DataFile, UnknownDataError, entry, registry, source_files, sources_markdown

__all__ = ["DataFile", "FetchError", "UnknownDataError", "cache_dir", "entry", "fetch", "mirror_dir",
           "registry", "sha256_of", "source_files", "sources_markdown", "try_fetch"]
