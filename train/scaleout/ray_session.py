"""Ray for a command: ``require_ray`` (its absence as a one-line error saying what to install), ``--ray [ADDRESS]``,
and ``session``, connected for a ``with`` block.

Addresses, as ``--ray [ADDRESS]`` takes them: no address (``local``) starts a Ray instance on this
machine for the command's lifetime; ``auto`` joins the cluster this machine is part of (``ray start
--head`` or ``ray start --address ...`` ran here); ``host:port`` or ``ray://host:port`` joins that one.
"""
from __future__ import annotations

import contextlib
import socket

from train.errors import UsageError

LOCAL = "local"
"""The address that starts a Ray instance on this machine (``--ray`` without an address)."""

INSTALL_HINT = "pip install 'uno-env[ray]' (or: pip install 'ray[rllib]')"


def require_ray(feature: str = "--ray"):
    """The ``ray`` module, or a UsageError saying that ``feature`` needs it and what to install."""
    try:
        import ray
    except ImportError:
        raise UsageError(f"{feature} needs Ray, which is not installed; install it with: {INSTALL_HINT}") from None
    return ray


def add_ray_argument(parser, what: str) -> None:
    """Add ``--ray [ADDRESS]`` to a sub-command's parser."""
    parser.add_argument("--ray", nargs="?", const=LOCAL, default=None, metavar="ADDRESS",
                        help=f"run {what} on Ray: without ADDRESS on a Ray instance started on this machine, "
                             "with 'auto' on the cluster this machine belongs to (ray start), or on the cluster "
                             f"at host:port; needs {INSTALL_HINT}")


def connect(address: str, num_cpus: int | None = None) -> bool:
    """Start or join Ray at ``address`` unless this process is connected already; True if it connected now.

    ``num_cpus`` caps a local instance (ignored when joining a cluster: its nodes say what they have).
    """
    ray = require_ray()
    if ray.is_initialized():  # e.g. a test's shared instance, or a caller that connected itself
        return False
    if not isinstance(address, str) or not address.strip():
        raise UsageError(f"--ray: {address!r} is not an address; give none, 'auto', host:port or ray://host:port")
    kwargs = {"include_dashboard": False, "configure_logging": False}
    if address == LOCAL:
        ray.init(address=LOCAL, num_cpus=num_cpus, **kwargs)
    else:
        _check_reachable(address)
        try:
            ray.init(address=address, **kwargs)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise UsageError(f"--ray {address}: could not join a Ray cluster there ({str(exc).splitlines()[0]}); "
                             "start one with 'ray start --head', or give no address for a local Ray") from None
    return True


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Refuse a host:port nobody listens on at once (Ray itself would retry for minutes)."""
    if address == "auto" or "://" in address:
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--ray {address}: not an address; give none, 'auto', host:port or ray://host:port")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise UsageError(f"--ray {address}: no Ray cluster answers there ({exc}); start one with "
                         "'ray start --head', or give no address for a local Ray") from None


@contextlib.contextmanager
def session(address: str | None, num_cpus: int | None = None):
    """Connected to Ray for the ``with`` block (nothing when ``address`` is None); disconnects only what it connected."""
    if address is None:
        yield None
        return
    ray = require_ray()
    started = connect(address, num_cpus)
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
