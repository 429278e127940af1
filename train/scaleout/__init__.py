"""Scaling out on Ray: tournaments as Ray tasks, self-play collectors as Ray actors, RLlib training.

Ray is an optional extra (``pip install 'uno-env[ray]'``): nothing here imports it at module level.
``ray_session.py`` starts or joins Ray (``require_ray``, ``connect``, ``session``). This ``__init__`` only gathers
its names for the modules outside the package; those inside import ``ray_session`` itself, never their package.
"""
from train.scaleout.ray_session import INSTALL_HINT, LOCAL, add_ray_argument, connect, require_ray, session

__all__ = ["INSTALL_HINT", "LOCAL", "add_ray_argument", "connect", "require_ray", "session"]
