import json
from pathlib import Path

import pytest
from django.test import override_settings

from factcheck.moderation.scorer import (
    ATTRIBUTES,
    IDENTITY_ATTACK,
    INSULT,
    MAX_CHARS,
    RULES_VERSION,
    SEVERE_TOXICITY,
    THREAT,
    AttributeScore,
    RuleScorer,
    ScoreResult,
    Span,
    empty_result,
    fold,
    get_scorer,
    primary_language,
)

EVAL_SET = Path(__file__).resolve().parent.parent / "data" / "scorer_eval.jsonl"


class FixedScorer:
    """A stand-in for a platform's own model, chosen through FACTCHECK_SCORER."""

    version = "fixed-1"

    def score(self, text, language):
        scores = {name: AttributeScore(0.0) for name in ATTRIBUTES}
        scores[THREAT] = AttributeScore(1.0, (Span(0, len(text), text, "fixed"),))
        return ScoreResult(scores=scores, version=self.version, language_supported=True)


@pytest.fixture(scope="module")
def scorer():
    return RuleScorer()


def scores(result):
    return {name: attribute.score for name, attribute in result.scores.items()}


def rules(result, attribute):
    return {span.rule for span in result.scores[attribute].spans}


def assert_spans_fit(text, result):
    for attribute in result.scores.values():
        for span in attribute.spans:
            assert 0 <= span.start < span.end <= len(text)
            assert text[span.start : span.end] == span.text


# --- each category ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "rule"),
    [
        ("I will kill you", "en", "threat.intent"),
        ("Someone should shoot that senator", "en", "threat.call_to_action"),
        ("If you publish that, we burn your office down", "en", "threat.conditional"),
        ("The judge deserves to be shot", "en", "threat.should_be_killed"),
        ("i hope someone stabs you", "en", "threat.death_wish"),
        ("Kill the governor.", "en", "threat.imperative"),
        ("Te voy a matar", "es", "threat.intent"),
        ("Hay que fusilar a los concejales", "es", "threat.call_to_action"),
        ("Si publicas eso, te mato", "es", "threat.intent"),
    ],
)
def test_it_scores_threats(scorer, text, language, rule):
    result = scorer.score(text, language)

    assert result.scores[THREAT].score >= 0.7
    assert rule in rules(result, THREAT)
    assert result.tier(0.7) == "urgent"
    assert result.escalates(0.7)


@pytest.mark.parametrize(
    ("text", "language", "rule"),
    [
        ("Migrants are vermin", "en", "identity.dehumanising"),
        ("Every refugee is a parasite", "en", "identity.dehumanising_singular"),
        ("The refugee infestation has to end", "en", "identity.collective"),
        ("Muslims aren't people", "en", "identity.denied_humanity"),
        ("Los judíos son parásitos", "es", "identity.dehumanising"),
        ("Los negros no son personas", "es", "identity.denied_humanity"),
    ],
)
def test_it_scores_dehumanisation(scorer, text, language, rule):
    result = scorer.score(text, language)

    assert result.scores[IDENTITY_ATTACK].score >= 0.7
    assert rule in rules(result, IDENTITY_ATTACK)
    assert result.scores[THREAT].score == 0
    assert result.tier(0.7) == "high"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Muslims should be exterminated", "en"),
        ("These refugees are cockroaches, exterminate them", "en"),
        ("Somalis are cockroaches and should be stamped out", "en"),
        ("Death to Muslims", "en"),
        ("Let's go stomp some immigrants tonight", "en"),
        ("Los refugiados son parásitos, hay que echarlos al mar", "es"),
        ("Muerte a los moros", "es"),
    ],
)
def test_it_scores_a_call_to_violence_against_a_group_as_both(scorer, text, language):
    result = scorer.score(text, language)

    assert result.scores[IDENTITY_ATTACK].score >= 0.7
    assert result.scores[THREAT].score >= 0.7
    assert result.tier(0.7) == "urgent"


# --- how the rules are built --------------------------------------------------------------------
#
# A threat is a frame (intent, a call, a condition, an order, a wish) and a violent act done to
# a person, a group or a building; dehumanisation is a group and a dehumanising term. Each case
# below is a different verb, frame or target from the ones the rules were first written from.


@pytest.mark.parametrize(
    ("text", "language", "rule"),
    [
        ("Say that to my face and I'll rip your head off", "en", "threat.intent"),
        ("Next time I see you I'm breaking your jaw", "en", "threat.intent"),
        ("Next protest we bring bats and we crack skulls", "en", "threat.intent"),
        ("I'm going to run you over with my truck", "en", "threat.intent"),
        ("Somebody should set that senator's house on fire", "en", "threat.call_to_action"),
        ("Wish someone would run that cyclist over", "en", "threat.call_to_action"),
        ("Round them up and put them against the wall", "en", "threat.imperative"),
        ("Somebody get a rope, this judge has to go", "en", "threat.rope"),
        ("i wanna see that politician hanging from a tree", "en", "threat.death_wish"),
        ("Hope that reporter gets his head kicked in", "en", "threat.death_wish"),
        ("that senator should end up at the bottom of a river", "en", "threat.never_walk_again"),
        ("Death to the traitors in parliament", "en", "threat.death_to"),
        ("die xslurs die", "en", "threat.death_to"),
        ("Como te vuelva a ver te parto las piernas", "es", "threat.intent"),
        ("Como lo vea por aquí lo mato a golpes", "es", "threat.conditional"),
        ("A ese concejal habría que tirarlo al río", "es", "threat.call_to_action"),
        (
            "Hay que darles un escarmiento con gasolina a los del sindicato",
            "es",
            "threat.call_to_action",
        ),
        ("Ese periodista debería aparecer en una cuneta", "es", "threat.should_die"),
        ("Ese político va a acabar en una zanja", "es", "threat.outcome"),
        ("Muerte a los traidores del gobierno", "es", "threat.death_to"),
        (
            "Traigan armas al ayuntamiento y quémenlo con ellos dentro",
            "es",
            "threat.call_to_action",
        ),
    ],
)
def test_it_scores_a_threat_built_from_a_frame_and_a_violent_act(scorer, text, language, rule):
    result = scorer.score(text, language)

    assert result.scores[THREAT].score >= 0.7
    assert rule in rules(result, THREAT)
    assert result.tier(0.7) == "urgent"
    assert_spans_fit(text, result)


@pytest.mark.parametrize(
    ("text", "language", "rule"),
    [
        ("Women are incubators, nothing more", "en", "identity.dehumanising"),
        ("Immigrants are sewage flooding our streets", "en", "identity.dehumanising"),
        ("this migrant is a rat like all the others", "en", "identity.dehumanising_singular"),
        ("Gay freaks everywhere you look", "en", "identity.apposition"),
        ("Refugees, those parasites, want more", "en", "identity.apposition"),
        ("Las lesbianas son unas enfermas", "es", "identity.dehumanising"),
        ("Ese marroquí es una rata", "es", "identity.dehumanising_singular"),
        ("Esos inmigrantes de mierda", "es", "identity.apposition"),
    ],
)
def test_it_scores_dehumanisation_built_from_a_group_and_a_term(scorer, text, language, rule):
    result = scorer.score(text, language)

    assert result.scores[IDENTITY_ATTACK].score >= 0.7
    assert rule in rules(result, IDENTITY_ATTACK)
    assert result.scores[THREAT].score == 0


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # The verbs of violence done to things, food, plants and photos.
        ("Kill the weeds with boiling water, no chemicals needed", "en"),
        ("Beat the eggs with the sugar until pale", "en"),
        ("Cut the onions into thin rings", "en"),
        ("We'll shoot a photo of the whole team after lunch", "en"),
        ("Hang the drying rack against the wall by the window", "en"),
        ("Snap your fingers to the beat", "en"),
        ("Hay que matar las malas hierbas antes de plantar", "es"),
        ("Vamos a colgar los cuadros del salón este finde", "es"),
        # Beating someone at a game or a race, rounding up children, ropes for boats.
        ("I'll beat you to the bus stop", "en"),
        ("Round up the kids, the bus leaves in ten minutes", "en"),
        ("Somebody get a rope, the boat is drifting away", "en"),
        ("He's getting a bullet journal for his birthday", "en"),
        ("Les vamos a dar una paliza en la final", "es"),
        # A group and "nothing more", idioms.
        ("Women are incredible engineers, nothing more to say", "en"),
        ("Vamos a matar el gusanillo con unas tapas", "es"),
        ("Te mato a besos, mi amor", "es"),
    ],
)
def test_it_leaves_look_alikes_of_the_new_structures_at_zero(scorer, text, language):
    result = scorer.score(text, language)

    assert result.scores[THREAT].score == 0
    assert result.scores[IDENTITY_ATTACK].score == 0


def test_it_reads_a_spanish_first_person_only_after_a_condition(scorer):
    # Folded, "lo mató" (he killed him) and "lo mato" (I kill him) are the same text.
    news = scorer.score("Un hombre lo mató a golpes en Valencia", "es")
    threat = scorer.score("Como lo vea por aquí lo mato a golpes", "es")

    assert news.scores[THREAT].score == 0
    assert threat.scores[THREAT].score >= 0.7


def test_it_takes_extra_targets_and_violent_verbs_from_the_lexicons(scorer):
    extra = {"en": {"persons": ["alderman"], "violent_acts": ["defenestrate"], "slurs": ["qslur"]}}
    extended = RuleScorer(extra_lexicons=extra)
    unfiltered = RuleScorer(extra_lexicons=extra)
    unfiltered.use_prefilter = False

    for text in [
        "I'll stab that alderman",
        "We're going to defenestrate him",
        "death to all qslurs",
    ]:
        assert scorer.score(text, "en").scores[THREAT].score == 0
        result = extended.score(text, "en")
        assert result.scores[THREAT].score >= 0.7
        # An added verb joins the prefilter's cues, so the prefilter never skips it.
        assert result == unfiltered.score(text, "en")


def test_it_scores_placeholder_slurs(scorer):
    result = scorer.score("we don't hire yslurs here", "en")

    # A negated sentence still uses the slur.
    assert result.scores[SEVERE_TOXICITY].score >= 0.7
    assert result.tier(0.7) == "high"


def test_it_takes_extra_lexicon_entries(scorer):
    extended = RuleScorer(
        extra_lexicons={"en": {"slurs": ["qslur"], "group_religion": ["zoroastrians"]}}
    )

    assert scorer.score("shut up qslur", "en").scores[SEVERE_TOXICITY].score == 0
    assert extended.score("shut up qslur", "en").scores[SEVERE_TOXICITY].score >= 0.7
    assert extended.score("Zoroastrians are vermin", "en").scores[IDENTITY_ATTACK].score >= 0.7


def test_it_reports_insults_but_never_escalates_them(scorer):
    result = scorer.score("What a moron, he parked across three spaces", "en")

    assert result.scores[INSULT].score >= 0.7
    assert result.max_score == 0
    assert result.tier(0.7) is None
    assert not result.escalates(0.7)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Just finished my morning run, feeling great", "en"),
        ("Muslims around the world are celebrating Eid this week", "en"),
        ("Pest control finally got rid of the rats in the attic", "en"),
        ("Los inmigrantes aportan mucho a la economía española.", "es"),
        ("", "en"),
    ],
)
def test_it_leaves_ordinary_posts_at_zero(scorer, text, language):
    result = scorer.score(text, language)

    assert scores(result) == dict.fromkeys(ATTRIBUTES, 0.0)
    assert result.language_supported


# --- context that lowers a score -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "attribute", "context"),
    [
        ("I will never hurt you", "en", THREAT, "negation"),
        ("No one deserves to be shot for protesting.", "en", THREAT, "negation"),
        (
            "Jews are not parasites, and anyone who says so is lying.",
            "en",
            IDENTITY_ATTACK,
            "negation",
        ),
        ("Los refugiados no son una plaga, son personas.", "es", IDENTITY_ATTACK, "negation"),
        ("He wrote 'I will kill you' on the wall", "en", THREAT, "quotation"),
        (
            "Police said the man threatened to kill and that 'someone should shoot him'.",
            "en",
            THREAT,
            "reporting",
        ),
        (
            "According to witnesses, the attacker shouted that immigrants are animals.",
            "en",
            IDENTITY_ATTACK,
            "reporting",
        ),
        (
            "The idea that Roma people are subhuman was used to justify murder.",
            "en",
            IDENTITY_ATTACK,
            "mention",
        ),
        ("It is disgusting to say migrants are vermin.", "en", IDENTITY_ATTACK, "condemnation"),
        ("We condemn the calls saying the mosque should be burned.", "en", THREAT, "condemnation"),
        (
            "Decir que los gitanos son escoria es racismo puro.",
            "es",
            IDENTITY_ATTACK,
            "condemnation",
        ),
        ("Let's kill them in the second half, 3-0 by halftime", "en", THREAT, "sports_games"),
        (
            "'Death to Muslims' was sprayed on our mosque. We stand with our neighbours.",
            "en",
            THREAT,
            "quotation",
        ),
        ("Hay que matar al jefe final del nivel 5", "es", THREAT, "sports_games"),
        ("Te mato si te comes mi tarta jajaja", "es", THREAT, "jocular"),
    ],
)
def test_it_lowers_a_match_in_context(scorer, text, language, attribute, context):
    result = scorer.score(text, language)

    assert 0 < result.scores[attribute].score < 0.7
    assert f"context.{context}" in rules(result, attribute)
    assert not result.escalates(0.7)
    assert_spans_fit(text, result)


@pytest.mark.parametrize(
    "text",
    [
        "Shoot your shot, worst she can say is no",
        "I'll shoot you a text later",
        "Kill the lights when you leave.",
        "Let's kill some time at the mall",
        "She absolutely killed it on stage",
        "I'll take a stab at the crossword",
    ],
)
def test_it_drops_matches_inside_idioms(scorer, text):
    result = scorer.score(text, "en")

    assert result.scores[THREAT].score == 0


def test_it_keeps_a_threat_unambiguous_even_after_the_game(scorer):
    result = scorer.score("Let's go beat up some protesters after the game", "en")

    assert result.scores[THREAT].score >= 0.7


def test_it_keeps_the_speakers_own_voice_unlowered(scorer):
    # "I think" is the speaker's opinion, and "anyone who says that" is part of the
    # threat's subject: neither is speech being reported.
    assert scorer.score("I think migrants are vermin", "en").scores[IDENTITY_ATTACK].score >= 0.7
    assert (
        scorer.score("Anyone who says that deserves to be shot", "en").scores[THREAT].score >= 0.7
    )


def test_it_does_not_let_an_attackers_adjective_pass_for_condemnation(scorer):
    result = scorer.score("Trans people are sick perverts", "en")

    assert result.scores[IDENTITY_ATTACK].score >= 0.7


# --- languages -------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["fr", "de-DE", "", None, "xx"])
def test_it_scores_a_language_without_rules_as_unknown(scorer, language):
    result = scorer.score("I will kill you", language)

    assert not result.language_supported
    assert scores(result) == dict.fromkeys(ATTRIBUTES, 0.0)
    assert result.version == RULES_VERSION


@pytest.mark.parametrize(
    ("language", "primary", "text"),
    [
        ("en-US", "en", "I will kill you"),
        ("es_MX", "es", "Te voy a matar"),
        ("EN", "en", "I will kill you"),
    ],
)
def test_it_uses_the_primary_language_subtag(scorer, language, primary, text):
    assert primary_language(language) == primary
    assert scorer.score(text, language).scores[THREAT].score >= 0.7


# --- spans and normalisation -----------------------------------------------------------------


def test_it_gives_spans_as_offsets_into_the_original_text(scorer):
    text = "Keep talking. I'll stab you the next time I see you"

    span = scorer.score(text, "en").scores[THREAT].spans[0]

    assert (span.start, span.end, span.rule) == (14, 27, "threat.intent")
    assert text[span.start : span.end] == span.text == "I'll stab you"


@pytest.mark.parametrize(
    ("text", "language", "attribute", "expected"),
    [
        # Ligatures fold to two letters each, so everything after them shifts.
        ("ﬁﬁﬁ ﬂuﬀ. I will kill you", "en", THREAT, "I will kill you"),
        # Combining accents fold away inside the match.
        (
            "Los judi\u0301os son para\u0301sitos",
            "es",
            IDENTITY_ATTACK,
            "Los judi\u0301os son para\u0301sitos",
        ),
        # ß folds to "ss" before the match; a zero-width space hides inside a word.
        ("Straße! I will k\u200bill you", "en", THREAT, "I will k\u200bill you"),
        # Full-width letters fold to ASCII; curly apostrophes to straight ones.
        ("Ｉ’ｌｌ ｓｔａｂ ｙｏｕ", "en", THREAT, "Ｉ’ｌｌ ｓｔａｂ ｙｏｕ"),
        ("MUSLIMS ARE VERMIN", "en", IDENTITY_ATTACK, "MUSLIMS ARE VERMIN"),
    ],
)
def test_it_keeps_offsets_right_when_normalisation_changes_lengths(
    scorer, text, language, attribute, expected
):
    result = scorer.score(text, language)

    assert result.scores[attribute].score >= 0.7
    matched = [s for s in result.scores[attribute].spans if not s.rule.startswith("context.")]
    assert matched[0].text == expected
    assert_spans_fit(text, result)


def test_it_maps_every_folded_character_back_to_the_original():
    text = "ﬁ Straße e\u0301 Ｉ\u200b x"

    folded = fold(text)

    assert folded.text == "fi strasse e i x"
    for i, char in enumerate(folded.text):
        start, end = folded.original(i, i + 1)
        assert 0 <= start < end <= len(text)
        if char.isalpha():
            assert fold(text[start:end]).text.strip()


# --- hostile input ---------------------------------------------------------------------------


def test_it_scores_only_the_first_20000_characters(scorer):
    text = "a " * (MAX_CHARS // 2) + "I will kill you"

    assert scorer.score(text, "en").scores[THREAT].score == 0
    assert scorer.score("I will kill you " + text, "en").scores[THREAT].score >= 0.7


@pytest.mark.parametrize(
    "text",
    [
        "\x00" * 500,
        "I will\x00 kill\x00 you",
        "\ud800 lone surrogate, I will kill you",
        "\u202eI will kill you\u202c",
        "e\u0301" * 5000,
        "'" * 3000,
        "\"'" * 3000,
        "\n" * 3000 + "I will kill you",
    ],
)
def test_it_survives_odd_input_with_fitting_spans(scorer, text):
    result = scorer.score(text, "en")

    assert set(result.scores) == set(ATTRIBUTES)
    assert all(0 <= attribute.score <= 1 for attribute in result.scores.values())
    assert_spans_fit(text, result)
    json.dumps(result.to_json())


@pytest.mark.parametrize(
    "text",
    [
        "i will " * 2850,
        "kill " * 4000,
        "muslims are not " * 1250,
        "he says that " * 1500 + "muslims are vermin",
        "if you " * 2850 + "we kill them",
        "i will kill you. " * 1170,
    ],
)
def test_it_scores_adversarial_text_within_the_cap(scorer, text):
    # Repetitive text is where a regular expression backtracks without end; speed itself is
    # measured by `manage.py benchmark`, not here.
    result = scorer.score(text, "en")
    assert_spans_fit(text, result)
    assert all(span.end <= MAX_CHARS for a in result.scores.values() for span in a.spans)


# --- the result ------------------------------------------------------------------------------


def test_it_returns_a_json_ready_result_with_its_version(scorer):
    result = scorer.score("Migrants are vermin and I will kill you", "en")

    data = json.loads(json.dumps(result.to_json()))

    assert data["version"] == RULES_VERSION == result.version
    assert data["language_supported"] is True
    assert set(data["attributes"]) == set(ATTRIBUTES)
    assert data["attributes"]["THREAT"]["spans"][0] == {
        "start": 24,
        "end": 39,
        "text": "I will kill you",
        "rule": "threat.intent",
    }
    assert result.max_score == max(
        result.scores[THREAT].score, result.scores[IDENTITY_ATTACK].score
    )


def test_it_reads_the_threshold_from_settings_by_default(settings):
    result = empty_result("v", language_supported=True)
    threat = ScoreResult(
        scores={**result.scores, THREAT: AttributeScore(0.75)}, version="v", language_supported=True
    )

    settings.FACTCHECK_ESCALATION_THRESHOLD = 0.7
    assert threat.tier() == "urgent"
    settings.FACTCHECK_ESCALATION_THRESHOLD = 0.8
    assert threat.tier() is None
    assert threat.escalates(0.75)


# --- the prefilter ---------------------------------------------------------------------------


def _eval_rows():
    with open(EVAL_SET, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def test_it_never_changes_a_score_by_prefiltering(scorer):
    unfiltered = RuleScorer()
    unfiltered.use_prefilter = False

    for row in _eval_rows():
        assert scorer.score(row["text"], row["language"]) == unfiltered.score(
            row["text"], row["language"]
        ), row["text"]


@pytest.mark.parametrize(
    "text",
    [
        "a horde of migrants is coming",
        "hordes of migrants are invading",
        "a swarm of migrants at the border",
        "I WILL KILL YOU",
        "Migrants Are Vermin",
    ],
)
def test_it_scores_the_same_with_and_without_the_prefilter(scorer, text):
    # "hordes?" in a lexicon once became the prefix "hordes", so the prefilter passed over
    # "a horde of …"; and patterns are case-sensitive on folded (lowercase) text.
    unfiltered = RuleScorer()
    unfiltered.use_prefilter = False

    result = scorer.score(text, "en")

    assert result == unfiltered.score(text, "en")
    assert result.escalates(0.7)


def test_it_refuses_a_pattern_that_could_never_match_folded_text():
    from factcheck.moderation.scorer import _compile

    with pytest.raises(ValueError, match="uppercase 'K'"):
        _compile(r"\bKill\b")
    assert _compile(r"\bkill\b[\U0001F602]\S*\s(?P<x>\w)").search("kill\U0001f602 x")


def test_it_finds_a_gate_cue_inside_every_rule_match(scorer):
    # Stronger than the test above: a rule's match must itself contain a cue of the family
    # the rule needs, or the gate could skip it in another sentence.
    for row in _eval_rows():
        language = scorer._compiled[primary_language(row["language"])]
        text = fold(row["text"]).text
        for rule in language.rules:
            if rule.supporting:
                continue
            for found in rule.regex.finditer(text):
                for family in (rule.needs, *rule.also_needs):
                    gate = language.gates[family]
                    assert gate.search(text, found.start(), found.end()), (
                        rule.name,
                        family,
                        found.group(),
                    )


# --- choosing the scorer ---------------------------------------------------------------------


def test_it_builds_the_configured_scorer_once():
    assert isinstance(get_scorer(), RuleScorer)
    assert get_scorer() is get_scorer()


def test_it_picks_another_scorer_from_the_setting():
    with override_settings(FACTCHECK_SCORER="tests.moderation.test_scorer.FixedScorer"):
        scorer = get_scorer()
        result = scorer.score("hello", "en")

        assert isinstance(scorer, FixedScorer)
        assert result.version == "fixed-1"
        assert result.tier(0.7) == "urgent"

    assert isinstance(get_scorer(), RuleScorer)
