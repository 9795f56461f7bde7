"""The tests, in folders that mirror the packages (tests/README.md says where a test goes)."""
