"""`torch.hub`: load entry points from a `hubconf.py` (a local directory, or a GitHub repository downloaded
into the hub cache), list them, show their help; download checkpoints into the cache. The cache is
PyTorch's (`$TORCH_HOME/hub`, default `~/.cache/torch/hub`), so repositories and checkpoints that PyTorch
downloaded are found without network. Every network call has a timeout (`_download.TIMEOUT_S`)."""
import contextlib
import importlib.util
import os
import sys
import zipfile
from urllib.error import HTTPError, URLError  # noqa: F401  (PyTorch's names in torch.hub)

from ._download import (  # noqa: F401
    HASH_REGEX, READ_DATA_CHUNK, download_url_to_file, load_state_dict_from_url)
from ._download import read_json, read_url

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
_hub_dir = None


def __getattr__(name):
    if name == "tqdm":  # `tqdm.auto.tqdm` when installed, else PyTorch's fallback bar (hub/_progress.py)
        from ._progress import get_tqdm
        return get_tqdm()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
_builtin_list = list


def _get_torch_home():
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME,
                                                                               DEFAULT_CACHE_DIR), "torch")))


def get_dir():
    """`torch.hub.get_dir()`: the hub cache folder: set_dir's, else $TORCH_HOME/hub (default
    ~/.cache/torch/hub)."""
    if os.getenv("TORCH_HUB"):
        import warnings
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    """`torch.hub.set_dir(d)`: use folder d as the hub cache."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# ---- hubconf ---------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_hubconf(repo_dir):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location(MODULE_HUBCONF, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # FileNotFoundError for a folder without hubconf.py, as PyTorch
    return module


def _check_dependencies(m):
    deps = getattr(m, VAR_DEPENDENCY, None)
    if deps is not None:
        missing = [pkg for pkg in deps if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")


def _entry(m, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    _check_dependencies(m)
    func = getattr(m, model) if model in dir(m) else None
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


# ---- GitHub repositories in the cache --------------------------------------------------------------------
def _parse_repo_info(github):
    repo_info, ref = github.split(":") if ":" in github else (github, None)
    owner, name = repo_info.split("/")
    if ref is None:  # the default branch: main if it exists, else master; offline: whichever is cached
        try:
            read_url(f"https://github.com/{owner}/{name}/tree/main/")
            ref = "main"
        except HTTPError as e:
            if e.code != 404:
                raise
            ref = "master"
        except URLError as e:
            for candidate in ("main", "master"):
                if os.path.exists(f"{get_dir()}/{owner}_{name}_{candidate}"):
                    ref = candidate
                    break
            if ref is None:
                raise RuntimeError("It looks like there is no internet connection and the repo could not be "
                                   f"found in the cache ({get_dir()})") from e
    return owner, name, ref


def _check_trusted(owner, name, owner_name_branch, trust_repo):
    hub_dir = get_dir()
    path = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(path):
        open(path, "a").close()
    with open(path) as f:
        trusted = tuple(line.strip() for line in f)
    downloaded = next(os.walk(hub_dir))[1]  # repos downloaded before the trust list existed count as trusted
    owner_name = f"{owner}_{name}"
    is_trusted = owner_name in trusted or owner_name_branch in downloaded or owner in _TRUSTED_REPO_OWNERS
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        response = input(f"The repository {owner_name} does not belong to the list of trusted repositories "
                         "and "
                         "as such cannot be downloaded. Do you trust this repository and wish to add it to "
                         "the "
                         "trusted list of repositories (y/N)?")
        if response.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif response.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002  (PyTorch's type)
        else:
            raise ValueError(f"Unrecognized response {response}.")
    if not is_trusted:
        with open(path, "a") as f:
            f.write(owner_name + "\n")


def _validate_ref(owner, name, ref):
    headers = {"Accept": "application/vnd.github.v3+json"}
    if os.environ.get(ENV_GITHUB_TOKEN):
        headers["Authorization"] = f"token {os.environ[ENV_GITHUB_TOKEN]}"
    for kind in ("branches", "tags"):
        page = 0
        while True:
            page += 1
            items = read_json(f"https://api.github.com/repos/{owner}/{name}/{kind}?per_page=100&page={page}",
                              headers)
            if not items:
                break
            if any(ref == it["name"] or it["commit"]["sha"].startswith(ref) for it in items):
                return
    raise ValueError(f"Cannot find {ref} in https://github.com/{owner}/{name}. If it's a commit from a "
                     "forked "
                     "repo, please call hub.load() with forked repo directly.")


def _get_cache_or_reload(github, force_reload, trust_repo, verbose=True, skip_validation=False):
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _parse_repo_info(github)
    branch = ref.replace("/", "_")
    owner_name_branch = f"{owner}_{name}_{branch}"
    repo_dir = os.path.join(hub_dir, owner_name_branch)
    _check_trusted(owner, name, owner_name_branch, trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    if not skip_validation:
        _validate_ref(owner, name, ref)
    cached_zip = os.path.join(hub_dir, branch + ".zip")
    if os.path.exists(cached_zip):
        os.remove(cached_zip)
    url = f"https://github.com/{owner}/{name}/zipball/{ref}"
    sys.stdout.write(f'Downloading: "{url}" to {cached_zip}\n')
    download_url_to_file(url, cached_zip, progress=False)
    with zipfile.ZipFile(cached_zip) as z:
        top = z.infolist()[0].filename
        root = os.path.realpath(hub_dir)
        for member in z.infolist():  # refuse members that would land outside the hub folder
            target = os.path.realpath(os.path.join(hub_dir, member.filename))
            if os.path.commonpath([root, target]) != root:
                raise ValueError(f"The zip file contains an unsafe path: {member.filename}")
        extracted = os.path.join(hub_dir, top)
        if os.path.exists(extracted):
            import shutil
            shutil.rmtree(extracted)
        z.extractall(hub_dir)
    os.remove(cached_zip)
    if os.path.exists(repo_dir):
        import shutil
        shutil.rmtree(repo_dir)
    os.rename(extracted, repo_dir)
    return repo_dir


# ---- public entry points -----------------------------------------------------------------------------------
def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):  # noqa: A001
    """`torch.hub.list(github, force_reload=False, skip_validation=False, trust_repo='check', verbose=True)`:
    the callable, public names of the repository's hubconf.py ('owner/repo[:ref]', from the cache when
    there)."""
    repo_dir = _get_cache_or_reload(github, force_reload, trust_repo, verbose, skip_validation)
    with _sys_path(repo_dir):
        m = _import_hubconf(repo_dir)
    return [f for f in dir(m) if callable(getattr(m, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):  # noqa: A001
    """`torch.hub.help(github, model, ...)`: the docstring of entry point `model`."""
    repo_dir = _get_cache_or_reload(github, force_reload, trust_repo, True, skip_validation)
    with _sys_path(repo_dir):
        m = _import_hubconf(repo_dir)
    return _entry(m, model).__doc__


def _load_local(hubconf_dir, model, *args, **kwargs):
    with _sys_path(hubconf_dir):
        m = _import_hubconf(hubconf_dir)
        return _entry(m, model)(*args, **kwargs)


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """`torch.hub.load(repo_or_dir, model, *args, source='github', trust_repo='check', force_reload=False,
    verbose=True, skip_validation=False, **kwargs)`: call entry point `model` of the hubconf.py in a local
    folder (source='local') or a GitHub repository ('owner/repo[:ref]', downloaded into the hub cache unless
    there). Missing `dependencies` -> RuntimeError; unknown entry -> RuntimeError; no network and not cached
    -> RuntimeError / URLError within the timeout."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _get_cache_or_reload(repo_or_dir, force_reload, trust_repo, verbose, skip_validation)
    return _load_local(repo_or_dir, model, *args, **kwargs)
