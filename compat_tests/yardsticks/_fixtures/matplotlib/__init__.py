"""A tiny stand-in for `matplotlib`, for the d2l yardsticks only (compat_tests/test_yardsticks_d2l.py).

matplotlib is not installed here, and d2l's library imports `pyplot` to draw its training curves. This
package gives d2l the names it uses (see `pyplot`). Nothing is drawn: each plotted line's data is converted
with `numpy.asarray` (as matplotlib does, so a tensor without `__array__` fails the same way) and kept;
when YARDSTICK_PLOT_JSON names a file, every figure's lines (x, y, label) are written there as JSON when the
process exits, so that the tests can read the recorded losses.
"""
__version__ = "0.0+yardstick-fixture"
