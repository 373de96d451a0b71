"""A tiny stand-in for `requests` (test fixture for the d2l yardsticks; this machine and CI are offline).

`get(url)` serves the file of the same base name from _fixtures/data/d2l/ (synthetic stand-ins for d2l's
downloads: timemachine.txt, airfoil_self_noise.dat); any other URL raises `ConnectionError`, as an offline
`requests` would.
"""
import os

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "d2l")


class RequestException(OSError):
    pass


class ConnectionError(RequestException):
    pass


class Response:
    def __init__(self, url, content):
        self.url, self.content, self.status_code = url, content, 200

    @property
    def text(self):
        return self.content.decode("utf-8")


def get(url, stream=False, verify=True, **kwargs):
    path = os.path.join(_DATA, url.rstrip("/").split("/")[-1])
    if not os.path.isfile(path):
        raise ConnectionError(f"offline yardstick fixture: no local copy of {url}")
    with open(path, "rb") as f:
        return Response(url, f.read())
