"""`matplotlib.pyplot` stand-in (test fixture): figures, axes and lines kept in memory, dumped as JSON.

Provides what d2l's library and chapters call: `rcParams`, `figure`, `subplots`, `gca`, `plot`, `contour`,
`xlabel`, `ylabel`, `legend`, `show`, and on axes `plot`, `cla`, `legend`, `grid`, `imshow`, the
`set_*` setters, `get_xaxis`/`get_yaxis`. The recorded figures go to the file named by YARDSTICK_PLOT_JSON at
exit: {"figures": [{"axes": [{"xlabel", "ylabel", "lines": [{"x", "y", "label", "fmt"}]}]}]}.
"""
import atexit
import json
import os

import numpy as np

rcParams = {"figure.figsize": (6.4, 4.8)}
_figures = []
_current = [None]


def _floats(values):
    return [float(v) for v in np.asarray(values, dtype=np.float64).ravel()]


class Line2D:
    def __init__(self, x, y, fmt=None, label=None, **kwargs):
        self.x, self.y, self.fmt, self.label = _floats(x), _floats(y), fmt, label
        self.kwargs = {k: v for k, v in kwargs.items() if isinstance(v, (str, int, float))}

    def set_label(self, label):
        self.label = label

    def as_dict(self):
        return {"x": self.x, "y": self.y, "label": self.label, "fmt": self.fmt}


class _Axis:
    def __init__(self):
        self.visible = True

    def set_visible(self, visible):
        self.visible = bool(visible)


class Axes:
    def __init__(self, figure):
        self.figure = figure
        self.lines, self.images, self.contours = [], [], []
        self.xlabel = self.ylabel = self.title = None
        self.xlim = self.ylim = None
        self.xscale = self.yscale = "linear"
        self._xaxis, self._yaxis = _Axis(), _Axis()

    @property
    def axes(self):
        return self

    def plot(self, *args, **kwargs):
        """plot(y), plot(x, y), plot(x, y, fmt), plot(x, y, fmt, x2, y2, fmt2, ...)"""
        args, made = list(args), []
        while args:
            if len(args) == 1 or isinstance(args[1], str):
                y = args.pop(0)
                x = np.arange(len(np.asarray(y)))
            else:
                x, y = args.pop(0), args.pop(0)
            fmt = args.pop(0) if args and isinstance(args[0], str) else None
            made.append(Line2D(x, y, fmt, **kwargs))
        self.lines.extend(made)
        return made

    def contour(self, *args, **kwargs):
        self.contours.append([np.asarray(a).shape for a in args])

    def imshow(self, img, **kwargs):
        self.images.append(np.asarray(img).shape)

    def cla(self):
        self.lines, self.images, self.contours = [], [], []

    def legend(self, *args, **kwargs):
        if len(args) == 2:  # legend(handles, labels)
            for line, label in zip(args[0], args[1]):
                line.set_label(label)
        elif len(args) == 1:  # legend(labels): labels the lines in order
            for line, label in zip(self.lines, args[0]):
                line.set_label(label)

    def grid(self, *args, **kwargs):
        pass

    def set_xlabel(self, label):
        self.xlabel = label

    def set_ylabel(self, label):
        self.ylabel = label

    def set_title(self, title):
        self.title = title

    def set_xlim(self, lim):
        self.xlim = None if lim is None else list(lim)

    def set_ylim(self, lim):
        self.ylim = None if lim is None else list(lim)

    def set_xscale(self, scale):
        self.xscale = scale

    def set_yscale(self, scale):
        self.yscale = scale

    def get_xaxis(self):
        return self._xaxis

    def get_yaxis(self):
        return self._yaxis

    def as_dict(self):
        return {"xlabel": self.xlabel, "ylabel": self.ylabel, "lines": [ln.as_dict() for ln in self.lines]}


class Figure:
    def __init__(self, figsize=None):
        self.figsize = tuple(figsize) if figsize is not None else tuple(rcParams["figure.figsize"])
        self.axes = []

    def add_axes(self):
        ax = Axes(self)
        self.axes.append(ax)
        return ax

    def gca(self):
        return self.axes[-1] if self.axes else self.add_axes()

    def as_dict(self):
        return {"axes": [ax.as_dict() for ax in self.axes]}


def figure(figsize=None, **kwargs):
    fig = Figure(figsize)
    _figures.append(fig)
    _current[0] = fig
    return fig


def gcf():
    return _current[0] if _current[0] is not None else figure()


def gca():
    return gcf().gca()


def subplots(nrows=1, ncols=1, figsize=None, squeeze=True, **kwargs):
    fig = figure(figsize)
    grid = np.empty((nrows, ncols), dtype=object)
    for i in range(nrows):
        for j in range(ncols):
            grid[i, j] = fig.add_axes()
    if squeeze and nrows * ncols == 1:
        return fig, grid[0, 0]
    return fig, (grid.squeeze() if squeeze else grid)


def plot(*args, **kwargs):
    return gca().plot(*args, **kwargs)


def contour(*args, **kwargs):
    return gca().contour(*args, **kwargs)


def xlabel(label):
    gca().set_xlabel(label)


def ylabel(label):
    gca().set_ylabel(label)


def legend(*args, **kwargs):
    gca().legend(*args, **kwargs)


def show(*args, **kwargs):
    pass


def _dump():
    path = os.environ.get("YARDSTICK_PLOT_JSON")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"figures": [fig.as_dict() for fig in _figures]}, f)


atexit.register(_dump)
