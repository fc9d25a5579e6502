import json
from pathlib import Path

import pytest

import ledgerflow
from ledgerflow.cli import main
from ledgerflow.config import LedgerConfig, load_config, parse_config
from ledgerflow.errors import ConfigError
from ledgerflow.pipeline import run_file

ROOT = Path(ledgerflow.__file__).resolve().parent.parent
TEXT = "id,date,amount,description\nA,2024-01-05,-4.50,Café Müller\n"


def latin1_file(tmp_path):
    path = tmp_path / "old-bank.csv"
    path.write_bytes(TEXT.encode("latin-1"))
    return path


def config_file(tmp_path, **settings):
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps({"ledgerflow": settings}), encoding="utf-8")
    return path


def test_default_encoding():
    assert LedgerConfig().encoding == "utf-8-sig"
    assert parse_config({}).encoding == "utf-8-sig"
    assert load_config(ROOT / "ledgerflow.json").encoding == "utf-8-sig"


def test_default_still_reads_utf8_with_bom(tmp_path):
    path = tmp_path / "new-bank.csv"
    path.write_text("\ufeff" + TEXT, encoding="utf-8")
    assert run_file(path).transactions[0].description == "Café Müller"


def test_configured_encoding_is_used(tmp_path):
    config = parse_config({"ledgerflow": {"encoding": "latin-1"}})
    assert run_file(latin1_file(tmp_path), config).transactions[0].description == "Café Müller"
    loaded = load_config(config_file(tmp_path, encoding="latin-1"))
    assert run_file(latin1_file(tmp_path), loaded).transactions[0].description == "Café Müller"


@pytest.mark.parametrize("bad", ["no-such-codec", 8, True, None])
def test_invalid_encodings_are_rejected(bad):
    with pytest.raises(ConfigError):
        parse_config({"ledgerflow": {"encoding": bad}})


def test_cli_option(tmp_path, capsys):
    assert main([str(latin1_file(tmp_path)), "--encoding", "latin-1"]) == 0
    assert "2024-01" in capsys.readouterr().out


def test_cli_uses_configured_encoding(tmp_path):
    assert main([str(latin1_file(tmp_path)), "--config", str(config_file(tmp_path, encoding="latin-1"))]) == 0


def test_cli_option_overrides_configuration(tmp_path):
    cfg = config_file(tmp_path, encoding="utf-8")
    assert main([str(latin1_file(tmp_path)), "--config", str(cfg), "--encoding", "latin-1"]) == 0


def test_cli_unknown_encoding_is_fatal(tmp_path, capsys):
    assert main([str(latin1_file(tmp_path)), "--encoding", "no-such-codec"]) == 2
    assert "error:" in capsys.readouterr().err


def test_readme_documents_it():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "--encoding" in text
    assert "`encoding`" in text
