"""A state-changing request's id is stored with its reply: it is limited in length, and one over the limit is
refused (``invalid_message``) with nothing stored, the socket still up. Real websocket clients against the
real app over the real SQLite ledger."""

from __future__ import annotations

import pytest

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck
from sidecar.client import RequestFailed
from sidecar.server.hub import MAX_REQUEST_ID

from ..conftest import Sidecar


async def test_an_over_long_request_id_is_refused_and_stores_nothing(sidecar: Sidecar) -> None:
    gm = await sidecar.client("gm", user="gm")
    longest = "i" * MAX_REQUEST_ID
    rolled = await gm.request(m.Roll(id=longest, check=FacetsCheck(pool=2)))
    assert rolled.seq == 1 and await gm.request(m.Roll(id=longest, check=FacetsCheck(pool=2))) == rolled
    for request in (
        m.Roll(id=longest + "i", check=FacetsCheck(pool=2)),
        m.Gm(id="g" * (MAX_REQUEST_ID + 1), op=t.SceneActivate(scene="S")),
    ):
        with pytest.raises(RequestFailed) as refused:
            await gm.request(request)
        assert refused.value.code == "invalid_message" and str(MAX_REQUEST_ID) in refused.value.message
    assert [s for s, _ in sidecar.ledger.events(sidecar.keys.table)] == [1]
    assert len(sidecar.ledger.request_ids(sidecar.keys.table)) == 1
    assert isinstance(await gm.request(m.Ping(id="p" * 1000)), m.Pong)  # ids that are not stored: as before
    await gm.close()
