"""One registry of algorithms (train/registry.py): every place that interprets ``algo`` agrees with it."""
from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import re

import pytest
import yaml

from train import registry
from train.algorithm import is_resumable, resolve_trainer, run_algorithm
from train.app.cli import build_parser, main
from train.config import ConfigError, TrainConfig
from train.config_model import NO_BOUNDS, declaring_part

from paths import ROOT  # tests/paths.py

EXAMPLE = dict(algo="pg_plugin:train", variant="classic", num_players=2, total_timesteps=300,
               opponents={"random": 1.0}, settings={"games": 8, "batch": 64}, eval_games=4)


@pytest.fixture
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(os.path.join(ROOT, "examples"))


def _train_description() -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    train = sub.choices["train"]
    return " ".join([train.description or ""] + [a.help or "" for a in train._actions])


def test_config_validation_the_registry_and_the_cli_name_the_same_algorithms(tmp_path, capsys):
    names = registry.names()
    assert set(TrainConfig.algorithms()) == set(names) and len(names) == len(set(names))
    with pytest.raises(ConfigError, match=re.escape(f"allowed: {', '.join(TrainConfig.algorithms())}, or")):
        TrainConfig.from_dict({"algo": "a2c"})
    words = set(re.findall(r"\w+", _train_description()))
    assert set(names) <= words  # `uno-env train --help` names every built-in
    # the CLI's one-line refusal of a trainer that cannot be imported lists the registry's names
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"algo": "registry_nowhere:train", "out_dir": str(tmp_path)}), encoding="utf-8")
    assert main(["train", "--config", str(config)]) == 2
    assert ", ".join(names) in capsys.readouterr().err
    # --ray: the CLI refuses it under every algo the registry does not run on Ray, naming those it does
    for name in names:
        config.write_text(yaml.safe_dump({"algo": name, "out_dir": str(tmp_path), "run_name": name}), encoding="utf-8")
        if name not in registry.on_ray():
            assert main(["train", "--config", str(config), "--ray"]) == 2
            assert f"needs algo: {' or '.join(registry.on_ray())}" in capsys.readouterr().err


def test_every_record_names_a_part_of_the_config_and_an_entry_in_its_own_room():
    bases = TrainConfig.__mro__
    for name, algorithm in registry.BUILTIN.items():
        assert algorithm.name == name and not algorithm.plug_in
        assert all(part in bases for part in algorithm.parts), name
        entry = algorithm.load()
        # the entry is the function itself, imported plainly (a reader and a tool follow it), not a name to import
        assert inspect.isfunction(algorithm.entry) and entry is algorithm.entry
        assert entry.__module__ == f"train.{name}.algorithm" and resolve_trainer(name) is entry
        # the entry's own resumable attribute (what a plug-in declares) and the registry agree
        assert (getattr(entry, "resumable", False) is True) == algorithm.resumable == is_resumable(name)
        assert not (algorithm.resumable and algorithm.own_checkpoints), name  # one kind of checkpoint each
    # every part with settings refused under other algorithms has its users in the registry
    for f in dataclasses.fields(TrainConfig):
        if f.metadata.get("bounds", NO_BOUNDS).exclusive:
            assert registry.users(declaring_part(TrainConfig, f.name)), f.name


def test_a_plug_in_resolves_into_the_same_record_type(examples_on_path, monkeypatch, tmp_path):
    import pg_plugin

    algorithm = registry.lookup("pg_plugin:train")
    assert type(algorithm) is type(registry.lookup("dqn")) is registry.Algorithm
    assert algorithm.plug_in and algorithm.name == "pg_plugin:train"
    assert algorithm.entry is algorithm.load() is pg_plugin.train and algorithm.parts == ()
    assert not (algorithm.resumable or algorithm.ray or algorithm.own_checkpoints)
    monkeypatch.setattr(pg_plugin.train, "resumable", True, raising=False)
    assert registry.lookup("pg_plugin:train").resumable and is_resumable("pg_plugin:train")
    cfg = TrainConfig.from_dict({**EXAMPLE, "out_dir": str(tmp_path)})
    path = run_algorithm(cfg, str(tmp_path / "run"))  # the contract runs the record's entry
    assert os.path.exists(path + ".json")
    with pytest.raises(ConfigError, match=r"neither a built-in algorithm \(ppo, sb3, dqn, nfsp, dmc\)"):
        registry.lookup("not an algo")


#: The modules that used to interpret ``algo`` themselves; they now ask the registry.
ASKING = ("train/config.py", "train/algorithm.py", "train/app/train_command.py", "train/benchmark/budget.py")


def test_no_module_but_the_registry_compares_algo_with_a_built_in_name():
    decisions = []
    for module in ASKING:
        tree = ast.parse(open(os.path.join(ROOT, module), encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                strings = {n.value for n in ast.walk(node) if isinstance(n, ast.Constant)}
                if strings & set(registry.names()):
                    decisions.append(f"{module}:{node.lineno}")
    assert decisions == []
