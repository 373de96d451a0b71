"""`python -m torchshim.distributed.launch [OPTIONS] SCRIPT [ARGS...]`: PyTorch's deprecated launcher
(`torch.distributed.launch`), torchrun with one difference: unless --use-env is given each worker also gets
`--local-rank=N` as its first argument. `main()` warns with PyTorch's FutureWarning. Everything else, and
every difference from PyTorch, is `torchshim.distributed.run`'s."""
import warnings

from .run import get_args_parser, run

__all__ = ["main", "parse_args", "launch"]

_DEPRECATED = ("The module torch.distributed.launch is deprecated\n"
               "and will be removed in future. Use torchrun.\n"
               "Note that --use-env is set by default in torchrun.\n"
               "If your script expects `--local-rank` argument to be set, please\n"
               "change it to read from `os.environ['LOCAL_RANK']` instead. See \n"
               "https://pytorch.org/docs/stable/distributed.html#launch-utility for \n"
               "further instructions\n")


def parse_args(args):
    """torchrun's arguments plus --use-env/--use_env (default False: pass `--local-rank=N`)."""
    parser = get_args_parser()
    parser.add_argument("--use-env", "--use_env", default=False, action="store_true",
                        help="Use environment variable to pass 'local rank'. For legacy reasons, the "
                             "default value is False. If set to True, the script will not pass --local-rank "
                             "as argument, and will instead set LOCAL_RANK.")
    return parser.parse_args(args)


def launch(args):
    """Run the parsed `args` (ValueError for --no-python without --use-env, as PyTorch)."""
    if args.no_python and not args.use_env:
        raise ValueError("When using the '--no-python' flag, you must also set the '--use-env' flag.")
    run(args, use_env=args.use_env)


def main(args=None):
    """`torch.distributed.launch.main(args=None)`: FutureWarning (PyTorch's text), then launch."""
    warnings.warn(_DEPRECATED, FutureWarning, stacklevel=2)
    launch(parse_args(args))


if __name__ == "__main__":
    main()
