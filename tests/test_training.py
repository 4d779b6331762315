"""The shared loop's schedules (attnlab.training): laid out over the budget, in the budget's unit."""

from __future__ import annotations

import math

import pytest

from attnlab.training import LoopConfig, budget_progress, budget_schedule, lr_factor


def test_cosine_and_linear_warm_up_then_reach_zero_at_the_end():
    cos, lin = budget_schedule("cosine", 0.1), budget_schedule("linear", 0.1)
    for f in (cos, lin):
        assert f(0.0) == 0 and f(0.05) == pytest.approx(0.5) and f(0.1) == pytest.approx(1.0)
        assert f(1.0) == pytest.approx(0.0, abs=1e-12) and f(1.5) == pytest.approx(0.0, abs=1e-12)
    # halfway through the decay: cosine and linear both at one half; a quarter in, they part
    assert cos(0.55) == pytest.approx(0.5) and lin(0.55) == pytest.approx(0.5)
    assert cos(0.325) == pytest.approx(0.5 * (1 + math.cos(math.pi / 4))) and lin(0.325) == pytest.approx(0.75)
    rates = [cos(p / 100) for p in range(10, 101)]
    assert all(a >= b for a, b in zip(rates, rates[1:]))  # never rises after the warm-up
    assert budget_schedule("cosine", 0.0)(0.0) == 1.0  # no warm-up: the peak from the first step


def test_progress_is_counted_in_the_unit_of_the_budget_that_ends_first():
    minutes = LoopConfig(minutes=10)
    assert budget_progress(minutes, 500, 150.0) == pytest.approx(0.25)  # 150 s of 600 s; steps do not count
    steps = LoopConfig(max_steps=400)
    assert budget_progress(steps, 100, 1e6) == pytest.approx(0.25)  # seconds do not count
    both = LoopConfig(minutes=10, max_steps=400)
    assert budget_progress(both, 100, 300.0) == pytest.approx(0.5)  # the minutes run out first
    assert budget_progress(both, 300, 60.0) == pytest.approx(0.75)  # the steps run out first
    assert budget_progress(LoopConfig(max_steps=0), 0, 0.0) == 1.0


def test_lr_factor_follows_the_configured_schedule():
    config = LoopConfig(minutes=20, schedule="linear", warmup_fraction=0.1)
    assert lr_factor(config, 10_000, 60.0) == pytest.approx(0.5)  # 1 of the 2 warm-up minutes
    assert lr_factor(config, 0, 11 * 60.0) == pytest.approx(0.5)  # halfway through the decay
    paper = LoopConfig(minutes=20, schedule="inverse_sqrt", warmup_steps=100)
    assert lr_factor(paper, 399, 19 * 60.0) == pytest.approx(0.5)  # steps only: sqrt(100 / 400)


@pytest.mark.parametrize("bad, message", [
    ({"schedule": "step"}, "schedule must be one of cosine, linear, inverse_sqrt"),
    ({"warmup_fraction": 1.0}, r"warmup_fraction must be in \[0, 1\)"),
    ({"warmup_fraction": -0.1}, r"warmup_fraction must be in \[0, 1\)"),
    ({"warmup_steps": 0}, "warmup_steps must be at least 1"),
    ({"minutes": -1.0}, "minutes must be a number >= 0"),
    ({"max_steps": -2}, "max_steps must be >= 0"),
    ({"clock": "gpu"}, "clock must be wall or process"),
])
def test_bad_settings_are_refused_with_the_field_named(bad, message):
    with pytest.raises(ValueError, match=message):
        LoopConfig(**{"max_steps": 1, **bad})


def test_runs_saved_before_the_budget_schedules_keep_the_papers():
    assert LoopConfig.from_saved({"max_steps": 5}).schedule == "inverse_sqrt"
    assert LoopConfig.from_saved({"max_steps": 5, "schedule": "linear"}).schedule == "linear"
