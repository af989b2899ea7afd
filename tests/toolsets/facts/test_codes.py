"""Identifiers in names and definitions (pure functions: no model, no store)."""

from __future__ import annotations

import pytest

from graphlore.toolsets.facts import codes as C
from graphlore.toolsets.facts import lookup
from graphlore.toolsets.facts import names as N


@pytest.mark.parametrize("name,codes,editions,platforms", [
    ("Panasonic KX-TCA86 Headset", {"kxtca86"}, set(), set()),
    ("KXTCA86", {"kxtca86"}, set(), set()),
    ("Adobe Audition 2.0 upgrade", {"2"}, {"upgrade"}, set()),
    ("Apple Soundtrack v1.2 (M9301Z/B)", {"1.2", "m9301zb"}, set(), set()),
    ("World of Warcraft 60 day pre-paid time card", set(), {"60day", "prepaid"}, set()),
    ("Vitamins, pack of 3", set(), {"3pack"}, set()),
    ("Vitamins 3-pack", set(), {"3pack"}, set()),
    ("Sony BRAVIA 40'' LCD KDL-40V4100", {"kdl40v4100"}, {"40inch"}, set()),
    ("ClueFinders 3rd Grade", {"3"}, set(), set()),
    ("Age of Empires III", {"3"}, set(), set()),
    ("Alpha Holdings B", {"b"}, set(), set()),
    ("Office 2007 Student (win/mac)", {"2007"}, {"academic"}, {"windows", "mac"}),
    ("Microsoft Office Professional", set(), {"pro"}, set()),
    ("New York City", set(), set(), set()),
])
def test_identifiers_of_a_name(name, codes, editions, platforms):
    found = C.identifiers(name)
    assert (set(found.codes), set(found.editions), set(found.platforms)) == (codes, editions, platforms)


def test_equal_codes_are_spelled_alike():
    assert C.identifiers("Audition 2.0").codes == C.identifiers("Audition v2").codes == {"2"}
    assert C.identifiers("TurboCAD v.11").codes == C.identifiers("TurboCAD 11").codes
    assert C.identifiers("PS-LX350H").codes == C.identifiers("pslx350h").codes


def test_strong_codes_are_specific_identifiers():
    assert C.identifiers("KX-TCA86 460001 2007 cs3 15").strong == {"kxtca86", "460001"}


@pytest.mark.parametrize("a,b,why", [
    ("Panasonic KX-TCA86", "Panasonic KX-TCA92", "different codes (kxtca86 vs kxtca92)"),
    ("Whirlpool DLE3733W dryer", "Whirlpool DLE5955W dryer", "different codes"),
    ("iPhone 14", "iPhone 15", "different codes (14 vs 15)"),
    ("Windows", "Windows 10", "different codes (none vs 10)"),  # a version in one name only
    ("Adobe Audition 2.0", "Adobe Audition 2.0 upgrade", "different editions (none vs upgrade)"),
    ("World of Warcraft", "World of Warcraft 60 day pre-paid time card", "different editions"),
    ("Vitamins", "Vitamins, pack of 3", "different editions (none vs 3pack)"),
    ("Photoshop CS3 (win)", "Photoshop CS3 [mac]", "different platforms"),
    ("Windows 10 Home", "Windows 10 Pro", "different editions (home vs pro)"),
])
def test_names_whose_identifiers_differ_conflict(a, b, why):
    assert why in C.conflict(a, b) and C.conflict(b, a) is not None


@pytest.mark.parametrize("a,b", [
    ("Adobe Audition 2.0", "adobe audition 2"),
    ("Panasonic KX-TCA86 Headset", "Panasonic Headset"),  # a model number one shop lists and the other not
    ("Photoshop CS3", "Photoshop CS3 (mac)"),  # a platform in one name only
    ("New York City", "NYC"),
])
def test_compatible_names_do_not_conflict(a, b):
    assert C.conflict(a, b) is None


def test_an_acronym_compares_codes_only():
    assert C.conflict("IBM", "International Business Machines") is not None  # "business" is an edition word
    assert C.conflict("IBM", "International Business Machines", editions=False) is None
    assert N.name_evidence(["IBM"], ["International Business Machines"]).level == "acronym"


def test_definitions_that_state_different_numbers_disagree():
    a = "american restaurant at 435 s. la cienega blv., los angeles; phone 310/246-1501"
    b = "american restaurant at 435 s. la cienega blvd., los angeles; phone 310-246-1501"
    c = "american restaurant at 12224 ventura blvd., studio city; phone 818/762-1221"
    assert C.numbers_disagree(a, b) is None
    assert "different numbers" in C.numbers_disagree(a, c)
    assert "different numbers" in C.numbers_disagree("paper by J. Widom in SIGMOD Record, 1996",
                                                      "paper by J. Widom in SIGMOD Record, 1997")
    assert C.numbers_disagree("technology company", "company founded in 1976") is None  # one states none


def test_name_evidence_levels():
    assert N.name_evidence(["Panasonic KX-TCA86 Headset"], ["KXTCA86 Comfort-Fit"]).level == "code"
    assert N.name_evidence(["Panasonic KX-TCA86 Headset"], ["KXTCA86 Comfort-Fit"], rare=lambda c: False).level == "none"
    assert N.name_evidence(["KXTCA86"], ["KXTCA92"]).level == "conflict"
    assert N.name_evidence(["encore marine aquarium 2.0"], ["marine aquarium 2.0 (mac)"]).level == "contained"
    assert N.name_evidence(["the printshop v22 deluxe"], ["The Print Shop 22 Deluxe"]).level == "same"
    assert N.name_evidence(["Goldman Sachs"], ["Goldman Sachs Group"]).level == "same"
    assert N.name_evidence(["Bank of America"], ["America"]).level == "none"  # one content word is too few
    found = N.name_evidence(["Apple", "Apple Inc."], ["Apple Inc"])
    assert found.level == "same" and found.pair[1] == "Apple Inc"


def test_words_a_longer_name_adds_must_be_explained():
    assert N.unexplained_words(("Stars", "Stars Cafe"), ("restaurant on Van Ness", "restaurant")) == ["cafe"]
    assert N.unexplained_words(("Stars", "Stars Cafe"), ("the cafe on Van Ness", "restaurant")) == []
    # codes, editions and stop words are left to the conflict rules
    assert N.unexplained_words(("Print Shop 22", "The Print Shop 22 Deluxe Edition"), ("x", "y")) == []


def test_code_keys_let_names_that_share_a_code_find_each_other():
    assert "c:kxtca86" in N.name_keys("Panasonic KX-TCA86") and "c:kxtca86" in N.probe_keys("KXTCA86 headset")
    assert not [k for k in N.name_keys("iPhone 15") if k.startswith("c:")]


def test_keyword_text_holds_aliases_and_whole_codes():
    text = lookup.keyword_text("Panasonic KX-TCA86", "a headset", ["Comfort-Fit Headset"])
    assert text.splitlines() == ["Panasonic KX-TCA86: a headset", "Comfort-Fit Headset", "kxtca86"]
    assert lookup.keyword_query("KXTCA86") == "KXTCA86 kxtca86"


def test_coded_nodes_go_first_in_fused_order_then_the_unlisted_ones():
    assert lookup.codes_first(["a", "b", "c", "d"], ["d", "b", "z"]) == ["b", "d", "z", "a", "c"]
    assert lookup.codes_first(["a", "b"], []) == ["a", "b"]


def test_definitions_naming_different_people_disagree():
    a = "paper by Jun Rao, Kenneth A. Ross, Johannes Gehrke in SIGMOD Record, 2003"
    b = "paper by Jeffrey F. Naughton, Minos N. Garofalakis, Kenneth A. Ross in SIGMOD Record, 2003"
    assert C.definition_names(a) == {"jun", "rao", "kenneth", "ross", "johannes", "gehrke", "sigmod", "record"}
    assert "name different people or places" in C.names_disagree(a, b)
    # the same paper, its venue spelled another way: most names shared
    same = "paper by Jun Rao, Kenneth Ross, Johannes Gehrke in ACM SIGMOD Record, 2003"
    assert C.names_disagree(a, same) is None
    # short definitions name too few things to judge by (an LLM's one-sentence description)
    assert C.names_disagree("CEO of Microsoft since 2014, succeeded Steve Ballmer",
                            "Indian-American business executive, chairman and CEO of Microsoft") is None


@pytest.mark.parametrize("a,b,texts,why,settled", [
    ("Apple iPod nano 8GB Blue", "Apple iPod nano 8GB Black", ("", ""), "different colour variants (blue vs black)", True),
    ("Travel adapter UK plug", "Travel adapter USA plug", ("", ""), "different region variants (uk vs usa)", True),
    ("Polo shirt XL", "Polo shirt small", ("", ""), "different size variants (xl vs small)", True),
    ("Office 2007 Retail", "Office 2007 OEM download", ("", ""), "different packaging variants", True),
    ("iPod nano Grey", "iPod nano Gray", ("", ""), None, False),  # one colour, two spellings
    ("Apple iPod nano Blue", "Apple iPod nano", ("", "a small music player"), "states the variant blue", False),
    ("Apple iPod nano Blue", "Apple iPod nano", ("", "a small music player in blue"), None, False),
    ("Sony DVPFX820LI portable DVD", "Sony DVP-FX820", ("", ""), "dvpfx820li and dvpfx820 differ only by a variant suffix", False),
    ("Sony DVP-FX820", "Sony DVP-FX820", ("", ""), None, False),
    ("Case XYZ123", "Case XYZ1234", ("", ""), None, False),  # a digit more is another model, not a variant suffix
])
def test_names_of_two_variants_of_one_thing(a, b, texts, why, settled):
    found = C.variant_difference([a], [b], texts)
    if why is None:
        assert found is None
    else:
        assert found is not None and why in found[0] and found[1] is settled


@pytest.mark.parametrize("a,b,why", [
    (["Dreamweaver CS3 Upgrade [Mac]"], ["Dreamweaver CS3 Upgrade"], "states the platform mac and the other none"),
    (["Dreamweaver CS3 Upgrade"], ["Dreamweaver CS3 Upgrade (win)", "Dreamweaver upgrade"], "platform windows"),
    (["Dreamweaver CS3 [Mac]"], ["Dreamweaver CS3 (Macintosh)"], None),  # both state one (the same)
    (["Dreamweaver CS3 [Mac]"], ["Dreamweaver CS3 for Windows"], None),  # both state one: codes.conflict's case
    (["Dreamweaver CS3"], ["Adobe Dreamweaver CS3"], None),  # neither
])
def test_a_platform_marker_on_one_side_only(a, b, why):
    found = C.one_sided_platform(a, b)
    assert found is None if why is None else why in found


def test_variant_classes_and_suffix_are_parameters():
    assert C.variant_difference(["iPod Blue"], ["iPod Black"], ("", ""), classes=("size",)) is None
    assert C.variant_difference(["DVPFX820LI"], ["DVPFX820"], ("", ""), suffix=0) is None
    assert C.variant_difference(["DVPFX820LIX"], ["DVPFX820"], ("", ""), suffix=2) is None


@pytest.mark.parametrize("name,editions", [
    ("Cola 12 fl oz", {"12oz"}), ("Cola 1.5 l", {"1.5l"}), ("USB charger 5V 2000mAh", {"5volt", "2000mah"}),
    ("Office 2007 w/ SP1", set()),  # "w/" is "with", not watts
])
def test_capacities_with_units_are_quantities(name, editions):
    assert set(C.identifiers(name).editions) == editions
