"""The Exchange streams' outbox (services/engine/transport/exchange_outbox.py): what is queued in
the same loop turn goes as one batch, a lone item at once, a batch stays within its byte
bound, close sends what is queued first."""

from __future__ import annotations

import asyncio

import pytest

from services.engine.transport.exchange_outbox import FRAMING_BYTES, Outbox


class Sent:
    """A ``send`` that records each batch (and can be held mid-write)."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.open = asyncio.Event()
        self.open.set()

    async def __call__(self, batch: list[int]) -> None:
        self.batches.append(batch)
        await self.open.wait()


def outbox(sent: Sent, max_bytes: int = 1000) -> Outbox[int]:
    """An outbox of ints whose size is their value."""
    return Outbox(sent, lambda item: item, max_bytes)


@pytest.mark.parametrize("items", [[1, 2, 3], [7]], ids=["several", "lone"])
async def test_items_queued_in_one_turn_go_as_one_batch_in_order_in_the_next(
    items: list[int],
) -> None:
    """A lone item too goes in the next turn: it waits for no company."""
    sent = Sent()
    box = outbox(sent)
    writer = asyncio.create_task(box.run())
    await asyncio.sleep(0)
    for item in items:
        box.put(item)
    await asyncio.sleep(0)
    assert sent.batches == [items]
    box.close()
    await writer


async def test_items_queued_during_a_write_go_together_after_it() -> None:
    sent = Sent()
    box = outbox(sent)
    writer = asyncio.create_task(box.run())
    sent.open.clear()
    box.put(1)
    await asyncio.sleep(0)
    box.put(2)
    box.put(3)
    await asyncio.sleep(0)
    assert sent.batches == [[1]]  # still writing the first
    sent.open.set()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert sent.batches == [[1], [2, 3]]
    box.close()
    await writer


async def test_a_batch_stays_within_its_bytes_and_a_larger_item_goes_alone() -> None:
    sent = Sent()
    box = outbox(sent, max_bytes=100 + 2 * FRAMING_BYTES)
    for item in (60, 40, 1, 500, 30):
        box.put(item)
    box.close()
    await box.run()
    assert sent.batches == [[60, 40], [1], [500], [30]]


async def test_close_sends_what_is_queued_then_takes_nothing() -> None:
    sent = Sent()
    box = outbox(sent)
    box.put(1)
    box.close()
    box.put(2)
    await asyncio.wait_for(box.run(), 1)
    assert sent.batches == [[1]] and box.closed
