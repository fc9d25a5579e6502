import importlib
import importlib.util
import re
from pathlib import Path
from unittest.mock import patch

import hookshot


def test_new_location_works():
    module = importlib.import_module("hookshot.transport.delivery_log")
    log = module.DeliveryLog(capacity=2)
    with patch("hookshot.transport.delivery_log.utc_now", return_value=12.5):
        entry = log.record(hookshot.Event("ping"), "https://e.com/h", 1, "failed")
    assert entry.recorded_at == 12.5
    assert entry.status is module.DeliveryStatus.FAILED


def test_old_module_is_gone():
    assert importlib.util.find_spec("hookshot.delivery_log") is None
    assert not Path("hookshot/delivery_log.py").exists()


def test_package_exports_the_moved_classes():
    module = importlib.import_module("hookshot.transport.delivery_log")
    assert hookshot.DeliveryLog is module.DeliveryLog
    assert hookshot.DeliveryStatus is module.DeliveryStatus


def test_deliverer_records_into_the_moved_log():
    module = importlib.import_module("hookshot.transport.delivery_log")
    deliverer = hookshot.Deliverer(hookshot.MemoryTransport([hookshot.Response(200)]))
    assert isinstance(deliverer.log, module.DeliveryLog)
    deliverer.deliver(hookshot.Event("ping"), "https://e.com/h")
    assert deliverer.log.summary()["succeeded"] == 1


def test_readme_names_the_new_module():
    readme = Path("README.md").read_text(encoding="utf-8")
    assert not re.search(r"(?<![.\w])hookshot\.delivery_log\b", readme)
    assert "hookshot.transport.delivery_log" in readme
