"""build_protos.py: generates the layer, and fails clearly on bad input."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from pathlib import Path

import pytest

import build_protos
from tests.expected import GENERATED_STEMS

pytest.importorskip("grpc_tools", reason="grpcio-tools is a test extra")


def _plugin_error() -> str:
    """Why mypy-protobuf's plugin cannot run with this protobuf runtime ('' if it can).

    The real build runs in its own isolated environment (pyproject's build-system);
    in a test venv pinned to an old runtime, mypy-protobuf's own gencode may refuse it.
    """
    result = subprocess.run([sys.executable, "-c", "import mypy_protobuf.main"],
                            capture_output=True, text=True, check=False)  # fmt: skip
    return result.stderr.strip().splitlines()[-1] if result.returncode else ""


if _error := _plugin_error():
    pytest.skip(f"mypy-protobuf cannot run on this runtime: {_error}", allow_module_level=True)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    out = tmp_path_factory.mktemp("pkg")
    return out, build_protos.build(out)


def test_generates_modules_stubs_and_descriptor_set(generated: tuple[Path, list[Path]]) -> None:
    out, written = generated
    names = {p.relative_to(out).as_posix() for p in written}
    for stem in GENERATED_STEMS:
        assert f"{stem}_pb2.py" in names and f"{stem}_pb2.pyi" in names
    assert "_descriptor_set.binpb" in names
    assert "google/__init__.py" in names
    # Annotation-only imports get no module (they stay in the descriptor set).
    assert not any(name.startswith("google/api/") for name in names)
    assert all(p.is_file() for p in written)


def test_stub_imports_point_into_the_package(generated: tuple[Path, list[Path]]) -> None:
    out, _ = generated
    stub = (out / "google/cloud/discoveryengine/v1/answer_pb2.pyi").read_text()
    assert "from grounding_protos.google.cloud.discoveryengine.v1 import safety_pb2" in stub
    assert "from grounding_protos.google.protobuf import timestamp_pb2" in stub
    assert "from google.protobuf import descriptor as _descriptor" in stub  # runtime, untouched
    assert "create_time: _timestamp_pb2.Timestamp | _datetime.datetime | None" in stub
    assert "_struct_pb2.Struct | _abc.Mapping[_builtins.str, _typing.Any] | None" in stub


def test_generated_files_match_the_installed_ones(generated: tuple[Path, list[Path]]) -> None:
    """Builds are deterministic: a rebuild equals what the installed package holds.

    Only what comes from the vendored protos is compared (for the descriptor set,
    file by file): the well-known types' descriptors and stub docstrings come from the
    bundled includes of whichever grpcio-tools runs, and the test venv's may be older
    than the build environment's.
    """
    from google.protobuf import descriptor_pb2

    import grounding_protos

    installed = Path(grounding_protos.__file__).parent
    out, written = generated
    for path in written:
        rel = path.relative_to(out)
        if rel.suffix == ".binpb" or rel.parts[:2] == ("google", "protobuf"):
            continue
        assert (installed / rel).read_bytes() == path.read_bytes(), rel
    own = set(build_protos.vendored_files())
    sets = [
        {f.name: f.SerializeToString(deterministic=True) for f in descriptor_pb2.FileDescriptorSet
         .FromString((root / build_protos.DESCRIPTOR_SET).read_bytes()).file if f.name in own}
        for root in (out, installed)
    ]  # fmt: skip
    assert sets[0] == sets[1]
    assert set(sets[0]) == own


def test_protoc_error_fails_with_protocs_message(tmp_path: Path) -> None:
    protos = tmp_path / "protos" / "x"
    protos.mkdir(parents=True)
    (protos / "bad.proto").write_text('syntax = "proto3";\nmessage Bad { strin name = 1; }\n')
    with pytest.raises(build_protos.BuildError) as info:
        build_protos.build(tmp_path / "out", tmp_path / "protos")
    message = str(info.value)
    assert message.startswith("protoc failed:")
    assert "x/bad.proto:2" in message and '"strin" is not defined' in message


def test_warnings_do_not_fail(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    build_protos.build(tmp_path)
    err = capsys.readouterr().err
    assert "warning: Import google/api/resource.proto is unused" in err


def test_no_protos_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(build_protos.BuildError, match=r"no \.proto files under"):
        build_protos.build(tmp_path / "out", tmp_path)


def _not_installed(*names: str) -> Callable[..., ModuleSpec | None]:
    find_spec = importlib.util.find_spec
    return lambda name, *args: None if name in names else find_spec(name, *args)


def test_missing_googleapis_common_protos(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", _not_installed("google.api"))
    with pytest.raises(build_protos.BuildError, match="pip install googleapis-common-protos"):
        build_protos.googleapis_include()


def test_missing_mypy_plugin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sysconfig, "get_path", lambda _name: str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    with pytest.raises(build_protos.BuildError, match="protoc-gen-mypy was not found in"):
        build_protos.mypy_plugin()


def test_missing_mypy_protobuf(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", _not_installed("mypy_protobuf"))
    with pytest.raises(build_protos.BuildError, match="mypy-protobuf is not installed"):
        build_protos.mypy_plugin()


def test_main_prints_one_line_and_returns_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = build_protos.main(["--out", str(tmp_path / "out"), "--protos", str(tmp_path)])
    assert status == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"build_protos: error: no .proto files under {tmp_path}"]


def test_main_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert build_protos.main(["--out", str(tmp_path)]) == 0
    assert "build_protos: wrote 26 files" in capsys.readouterr().out
