"""Build files (CMake, Makefiles) migrated from CUDA to HIP; see docs/build-migration.md."""
