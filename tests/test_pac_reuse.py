"""Model reuse (Pac-Man, Sec. 12): a property checked against a saved PAC model,
with no relearning when it holds. Every violation is replayed in the interpreter."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

import tracelearn
from tracelearn.analyses.pac.properties import max_run_violations
from tracelearn.api.pac_verification import pac_reuse
from tracelearn.automata.dfa import DFA
from tracelearn.cli.main import main

SRC = """#include <assert.h>
void log_big(int v) { (void)v; }
int main(void) {
    int x = __VERIFIER_nondet_int();
    int n = 0;
    if (x > 10) n++;
    if (x > 20) n++;
    if (x > 30) { n++; log_big(x); }
    if (x < -5) { DEEP: n--; }
    if (x > 1000 && x < 1000) { NEVER: n = 7; }
    assert(n <= 3);
    return 0;
}
"""


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("reuse")
    src = d / "r.c"
    src.write_text(SRC)
    doc = tracelearn.pac(str(src), timeout=120)
    assert doc["verdict"] == "pac-correct"
    model = d / "model.json"
    model.write_text(json.dumps(doc))
    return str(src), str(model), doc


def test_a_label_reached_is_a_replayed_violation(saved):
    src, model, _ = saved
    doc = pac_reuse(src, model, "unreach-label:DEEP", timeout=60)
    assert doc["verdict"] == "violated" and doc["error_nodes"] == 1
    w = doc["witness"]
    assert w["replay"]["status"] == "confirmed" and w["line"] == 9
    assert w["inputs"][0]["value"] < -5  # the only way to the label
    assert w["decision_vector"] == "0001"  # x > 10, x > 20, x > 30 false, x < -5 true
    assert [int(d.rsplit(":", 2)[1]) for d in w["decision_sites"]] == [6, 7, 8, 9]  # their lines


def test_an_unreachable_label_holds_with_the_models_guarantee_and_no_relearning(saved):
    src, model, learned = saved
    doc = pac_reuse(src, model, "unreach-label:NEVER", timeout=60)
    assert doc["verdict"] == "holds" and doc["relearned"] is None
    assert doc["epsilon"] == learned["epsilon"] and doc["delta"] == learned["delta"]
    assert doc["guarantee"] and doc["distribution"] == learned["distribution"]
    assert doc["stats"]["membership_queries"] == 0  # the emptiness test alone


def test_a_call_is_found_and_replayed(saved):
    src, model, _ = saved
    doc = pac_reuse(src, model, "unreach-call:log_big", timeout=60)
    assert doc["verdict"] == "violated"
    assert doc["witness"]["replay"]["status"] == "confirmed" and doc["witness"]["inputs"][0]["value"] > 30


def test_a_regular_property_over_decisions(saved):
    src, model, _ = saved
    doc = pac_reuse(src, model, "max-run:1:2", timeout=60)
    assert doc["verdict"] == "violated" and doc["witness"]["decision_vector"] == "111"
    assert [int(d.rsplit(":", 2)[1]) for d in doc["witness"]["decision_sites"]] == [6, 7, 8]
    replay = doc["witness"]["replay"]
    assert replay["status"] == "confirmed" and replay["vector"].startswith("111")
    assert doc["witness"]["inputs"][0]["value"] > 30


def test_a_refuted_model_is_learned_again_with_the_property_on_every_conjecture(saved):
    src, model, _ = saved
    learned = DFA.from_dict(json.load(open(model))["automaton"])
    bad = max_run_violations("1", 3)
    w = learned.intersection(bad).shortest_word()
    if w is None:
        pytest.skip("this model has no 4 consecutive 1-decisions (a finer model was learned)")
    doc = pac_reuse(src, model, "max-run:1:3", timeout=120)
    # four 1-decisions would need x > 30 and x < -5: no run makes them
    assert doc["verdict"] == "model-refuted" and doc["refuting_vector"] == "".join(w)
    again = doc["relearned"]
    assert again["verdict"] == "pac-correct" and again["property"]["verdict"] == "holds"
    assert DFA.from_dict(again["automaton"]).intersection(bad).is_empty()
    no = pac_reuse(src, model, "max-run:1:3", timeout=60, relearn=False)
    assert no["verdict"] == "model-refuted" and no["relearned"] is None


def test_a_dfa_file_is_a_property(saved, tmp_path):
    src, model, _ = saved
    # bad: a vector that begins 0, 0 (x <= 20 twice): feasible
    bad = DFA(("0", "1"), 4, 0, frozenset({2}), {(0, "0"): 1, (0, "1"): 3, (1, "0"): 2, (1, "1"): 3,
                                                 (2, "0"): 2, (2, "1"): 2, (3, "0"): 3, (3, "1"): 3})
    f = tmp_path / "bad.json"
    f.write_text(bad.to_json())
    doc = pac_reuse(src, model, f"dfa:{f}", timeout=60)
    assert doc["verdict"] == "violated" and doc["witness"]["decision_vector"] == "00"
    assert [int(d.rsplit(":", 2)[1]) for d in doc["witness"]["decision_sites"]] == [6, 7]
    assert doc["witness"]["inputs"][0]["value"] <= 10


@pytest.mark.parametrize("prop, words", [
    ("unreach-label:NOPE", "no label NOPE"),
    ("unreach-call:nope", "no function nope"),
    ("max-run:2:3", "D 0 or 1"),
    ("reach", "expected unreach-label"),
    ("dfa:/nonexistent.json", "cannot read"),
])
def test_bad_properties_are_clear_errors(saved, capsys, prop, words):
    src, model, _ = saved
    assert main(["pac", src, "--model", model, "--property", prop]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_a_model_of_another_program_is_refused(saved, tmp_path, capsys):
    _, model, _ = saved
    other = tmp_path / "o.c"
    other.write_text("int main(void){ int x = __VERIFIER_nondet_int(); if (x > 3) return 1; return 0; }\n")
    assert main(["pac", str(other), "--model", model, "--property", "max-run:1:2"]) == 2
    assert "learned from another program" in capsys.readouterr().err


def test_a_model_without_guarantee_is_refused(saved, tmp_path, capsys):
    src, model, learned = saved
    bad = tmp_path / "m.json"
    bad.write_text(json.dumps({**learned, "verdict": "unknown"}))
    assert main(["pac", src, "--model", str(bad), "--property", "max-run:1:2"]) == 2
    assert "not 'pac-correct'" in capsys.readouterr().err
    assert main(["pac", src, "--property", "max-run:1:2"]) == 2
    assert "go together" in capsys.readouterr().err


def test_cli_json_matches_the_api(saved, capsys):
    src, model, _ = saved
    assert main(["pac", src, "--model", model, "--property", "unreach-label:NEVER", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "holds" and doc["mode"] == "model reuse" and doc["property"] == "unreach-label:NEVER"


BUGGY = """extern void __VERIFIER_error(void);
extern int __VERIFIER_nondet_int(void);
int f(int a) { if (a > 5) return a - 5; return 0; }
int main(void) {
    int x = __VERIFIER_nondet_int();
    int y = __VERIFIER_nondet_int();
    if (f(x) == 3 && y < 0) { __VERIFIER_error(); }
    return 0;
}
"""


def test_a_pac_bug_gets_a_witness_that_validates_and_a_playback_that_fails_under_gcc(tmp_path, capsys):
    src = tmp_path / "b.c"
    src.write_text(BUGGY)
    wit, pb = tmp_path / "w.yml", tmp_path / "pb"
    assert main(["pac", str(src), "--witness", str(wit), "--playback", str(pb), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "bug" and doc["witness"]["replay"]["status"] == "confirmed"
    assert "function_return" in wit.read_text() and "target" in wit.read_text()
    res = tracelearn.validate(str(wit), str(src), timeout=60)
    assert res["result"] == "confirmed", res
    if shutil.which("gcc"):
        exe = tmp_path / "pb.out"
        build = subprocess.run(["gcc", "-o", str(exe), str(pb / "playback.c")], capture_output=True, text=True)
        assert build.returncode == 0, build.stderr
        run = subprocess.run([str(exe)], capture_output=True, text=True)
        assert run.returncode != 0 and "__VERIFIER_error reached" in run.stdout + run.stderr
