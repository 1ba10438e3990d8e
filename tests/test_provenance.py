"""How a build's commit is shown in reports and `tcpstart --version`."""

from tcpstart.provenance import commit_label, describe


def test_a_commit_is_shown_by_its_first_ten_digits() -> None:
    assert commit_label({"git_commit": "433ef3977d04d449bfd4b40448dc4a47dbc1fd86", "git_dirty": False}) == "433ef3977d"
    assert commit_label({"git_commit": "433ef3977d04d449", "git_dirty": True}) == "433ef3977d+changes"


def test_a_build_outside_a_checkout_says_so_in_full() -> None:
    # The placeholder is not a commit: it is never cut to ten characters ("unknown co").
    assert commit_label({"git_commit": None, "git_dirty": None}) == "unknown commit"
    line = describe({"tcpstart": {"version": "0.1.0", "git_commit": None}, "created": "2026-11-27T03:00:00+00:00"})
    assert line == "tcpstart 0.1.0 (unknown commit), 2026-11-27T03:00:00+00:00"
