import json
from pathlib import Path

from hookshot.config import load_config
from hookshot.events import Event
from hookshot.http import Response
from hookshot.schema import SchemaRegistry
from hookshot.transport import Deliverer, MemoryTransport

BILLING = "https://billing.example.com:8443/webhooks"


def sample_events():
    data = json.loads(Path("data/sample_events.json").read_text(encoding="utf-8"))
    return [Event.from_dict(item) for item in data["events"]]


def invoice_event():
    return next(e for e in sample_events() if e.event_id == "evt_0004")


def test_sample_invoice_event_is_named_invoice_paid():
    names = [event.name for event in sample_events()]
    assert names == ["order.created", "order.item.added", "customer.updated", "invoice.paid"]


def test_invoice_schema_is_registered_under_invoice_paid():
    registry = SchemaRegistry.from_file("data/schemas.json")
    assert "invoice.paid" in registry
    assert "invoice.payed" not in registry
    assert registry.check(invoice_event(), require_schema=True) == []


def test_example_config_routes_invoice_paid_to_billing():
    settings = load_config("hookshot.ini", environ={"HOOKSHOT_SECRET": "s"})
    assert settings.endpoints.get("invoice.paid") == BILLING
    assert "invoice.payed" not in settings.endpoints
    transport = MemoryTransport(default=Response(200))
    deliverer = Deliverer.from_settings(transport, settings, sleep=lambda s: None)
    outcomes = deliverer.deliver_to_matching(invoice_event(), settings.endpoints)
    assert [o.url for o in outcomes] == [BILLING]
