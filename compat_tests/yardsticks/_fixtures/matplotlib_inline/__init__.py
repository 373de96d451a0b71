"""Stand-in for `matplotlib_inline` (test fixture for the d2l yardsticks): see `backend_inline`."""
