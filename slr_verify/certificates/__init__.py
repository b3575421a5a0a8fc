"""The committed proof certificates (`docs/certificates.md`), replayed by ``slr-verify check``."""
