"""JW502 counts a sync's cost per loop iteration: reads that repeat one program stack (a loop around the line), not
reads of one line reached from separate lines (a test's 55 assertion calls of one helper: no loop to overlap).
The step is tests/fixtures/heavy_step.py (on the runs' PYTHONPATH).

Held-out class (issue #24, suites7): 55 scalar reads from separate assertion calls of a test were reported as a host
sync per iteration. The twin: the same helper called from a loop of the program's own code is reported.
"""

from __future__ import annotations

from conftest import watch_pytest

CHECKS = '''
from heavy_step import heavy_step as step, next_batch


def batch(x):
    next_batch()                                 # the host's own work before each step (loading a batch)
    return x


def check(total, i):
    assert float(total) > -1e9, i                # one read per call


def check_each(x, n):
    for i in range(n):
        check(step(batch(x))[1], i)               # the program's loop: a sync per iteration
'''

SUITE = '''
from heavy_step import start

from checks import batch, check, check_each, step


def test_separate_assertions():
    x = start()
    check(step(batch(x))[1], 0)
    check(step(batch(x))[1], 1)
    check(step(batch(x))[1], 2)
    check(step(batch(x))[1], 3)
    check(step(batch(x))[1], 4)
    check(step(batch(x))[1], 5)
    check(step(batch(x))[1], 6)
    check(step(batch(x))[1], 7)
    check(step(batch(x))[1], 8)
    check(step(batch(x))[1], 9)
    check(step(batch(x))[1], 10)
    check(step(batch(x))[1], 11)
    check(step(batch(x))[1], 12)
    check(step(batch(x))[1], 13)
    check(step(batch(x))[1], 14)
    check(step(batch(x))[1], 15)
    check(step(batch(x))[1], 16)
    check(step(batch(x))[1], 17)
    check(step(batch(x))[1], 18)
    check(step(batch(x))[1], 19)
    check(step(batch(x))[1], 20)
    check(step(batch(x))[1], 21)
    check(step(batch(x))[1], 22)
    check(step(batch(x))[1], 23)
    check(step(batch(x))[1], 24)
    check(step(batch(x))[1], 25)
    check(step(batch(x))[1], 26)
    check(step(batch(x))[1], 27)
    check(step(batch(x))[1], 28)
    check(step(batch(x))[1], 29)
    check(step(batch(x))[1], 30)
    check(step(batch(x))[1], 31)
    check(step(batch(x))[1], 32)
    check(step(batch(x))[1], 33)
    check(step(batch(x))[1], 34)
    check(step(batch(x))[1], 35)
    check(step(batch(x))[1], 36)
    check(step(batch(x))[1], 37)
    check(step(batch(x))[1], 38)
    check(step(batch(x))[1], 39)
    check(step(batch(x))[1], 40)
    check(step(batch(x))[1], 41)
    check(step(batch(x))[1], 42)
    check(step(batch(x))[1], 43)
    check(step(batch(x))[1], 44)
    check(step(batch(x))[1], 45)
    check(step(batch(x))[1], 46)
    check(step(batch(x))[1], 47)
    check(step(batch(x))[1], 48)
    check(step(batch(x))[1], 49)
    check(step(batch(x))[1], 50)
    check(step(batch(x))[1], 51)
    check(step(batch(x))[1], 52)
    check(step(batch(x))[1], 53)
    check(step(batch(x))[1], 54)


def test_one_loop():
    check_each(start(), 55)
'''


def test_separate_calls_are_no_loop_and_a_loop_of_them_is(tmp_path):
    data = watch_pytest(tmp_path, {"checks.py": CHECKS, "test_checks.py": SUITE}, "test_checks.py")
    found = [f for f in data["findings"] if f["code"] == "JW502"]
    # Only the loop's calls: the assertion line is reached from one stack 55 times in test_one_loop (reported), and
    # from 55 stacks once each in test_separate_assertions (the same line, the same reads: not a loop).
    assert [(f["location"]["file"].rsplit("/", 1)[-1], f["details"]["repeats"]) for f in found] == [
        ("checks.py", 54)], [f["message"] for f in data["findings"]]
    assert found[0]["details"]["reads"] == 110
