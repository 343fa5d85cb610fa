"""The text scorer: how likely a post is to threaten violence or attack a protected group.

The contract a caller needs: ``get_scorer().score(text, language)`` returns a ``ScoreResult`` with
a score in 0..1 for each attribute in ``ATTRIBUTES`` (names as in common moderation APIs), the
spans of the original text that explain each score, and the scorer's version. The scorer is
chosen by ``settings.FACTCHECK_SCORER`` (a dotted path), so a platform can plug in its own model:
any class with a ``version`` and a ``score(text, language) -> ScoreResult`` method will do.

``RuleScorer`` is the default: named regular expressions kept below, grouped by attribute, over
lexicons that a deployment can extend (``RuleScorer(extra_lexicons=…)`` or a subclass). Context
that lowers a score (negation, quotation, reporting, condemnation, idioms, sports and games talk)
is rules too. Bump ``RULES_VERSION`` with every change to a rule or a lexicon: escalation signals
are deduplicated by text and version.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Protocol

from django.conf import settings
from django.core.signals import setting_changed
from django.utils.module_loading import import_string

# Part of every scorer signal's dedupe key: a new version rescores a text. Raise it when a
# change to the rules can change a score.
RULES_VERSION = "rules-2"

THREAT = "THREAT"
IDENTITY_ATTACK = "IDENTITY_ATTACK"
SEVERE_TOXICITY = "SEVERE_TOXICITY"
INSULT = "INSULT"
ATTRIBUTES = (THREAT, IDENTITY_ATTACK, SEVERE_TOXICITY, INSULT)
# INSULT is reported but never escalates: rudeness is not a reason to remove a post.
ESCALATING = (THREAT, IDENTITY_ATTACK, SEVERE_TOXICITY)

MAX_CHARS = 20_000


# --- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str
    rule: str

    def to_json(self) -> dict:
        return {"start": self.start, "end": self.end, "text": self.text, "rule": self.rule}


@dataclass(frozen=True)
class AttributeScore:
    score: float
    spans: tuple[Span, ...] = ()


def _default_threshold(threshold: float | None) -> float:
    return settings.FACTCHECK_ESCALATION_THRESHOLD if threshold is None else threshold


@dataclass(frozen=True)
class ScoreResult:
    """``scores`` holds every attribute in ``ATTRIBUTES``. Span offsets index the original
    text (``text[span.start:span.end] == span.text``). Spans whose rule starts with
    ``context.`` are the context that lowered a score, not a match."""

    scores: dict[str, AttributeScore]
    version: str
    language_supported: bool

    @property
    def attributes(self) -> dict[str, AttributeScore]:
        return self.scores

    @property
    def max_score(self) -> float:
        """The highest score among the attributes that escalate (not INSULT)."""
        return max(
            (self.scores[name].score for name in ESCALATING if name in self.scores), default=0
        )

    def escalates(self, threshold: float | None = None) -> bool:
        return self.tier(threshold) is not None

    def tier(self, threshold: float | None = None) -> str | None:
        """The escalation tier: "urgent" for a threat or call to violence, "high" for
        dehumanisation or a slur, None below the threshold (default:
        settings.FACTCHECK_ESCALATION_THRESHOLD). INSULT never escalates."""
        threshold = _default_threshold(threshold)

        def reaches(name: str) -> bool:
            attribute = self.scores.get(name)
            return attribute is not None and attribute.score >= threshold

        if reaches(THREAT):
            return "urgent"
        if reaches(IDENTITY_ATTACK) or reaches(SEVERE_TOXICITY):
            return "high"
        return None

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "language_supported": self.language_supported,
            "attributes": {
                name: {
                    "score": round(attribute.score, 4),
                    "spans": [span.to_json() for span in attribute.spans],
                }
                for name, attribute in self.scores.items()
            },
        }


class Scorer(Protocol):
    version: str

    def score(self, text: str, language: str) -> ScoreResult: ...


_ZERO = AttributeScore(0.0)


def empty_result(version: str, *, language_supported: bool) -> ScoreResult:
    return ScoreResult(
        scores=dict.fromkeys(ATTRIBUTES, _ZERO),
        version=version,
        language_supported=language_supported,
    )


@lru_cache(maxsize=256)
def primary_language(language: str | None) -> str:
    """The primary subtag: "en-US" → "en"; "" or None → ""."""
    return re.split(r"[-_]", (language or "").strip(), maxsplit=1)[0].lower()


# --- choosing the scorer ---------------------------------------------------------------------

_cache: dict[str, Scorer] = {}
_cache_lock = threading.Lock()


def get_scorer() -> Scorer:
    """The scorer named by settings.FACTCHECK_SCORER, built once per process."""
    path = settings.FACTCHECK_SCORER
    scorer = _cache.get(path)
    if scorer is None:
        # Building RuleScorer compiles every rule: do it once even if threads race here.
        with _cache_lock:
            scorer = _cache.get(path)
            if scorer is None:
                scorer = import_string(path)()
                _cache.clear()
                _cache[path] = scorer
    return scorer


def _clear_cache(*, setting, **kwargs):
    if setting == "FACTCHECK_SCORER":
        _cache.clear()


setting_changed.connect(_clear_cache, dispatch_uid="moderation.scorer.clear_cache")


# --- normalisation with offsets -------------------------------------------------------------
#
# Rules match a folded copy of the text: NFKC, casefold, accents stripped, control characters
# as spaces, invisible format characters (zero-width space, soft hyphen…) dropped. Folding
# changes lengths ("ﬁ" → "fi", "ß" → "ss", "e" + combining accent → "e"), so the folded text
# keeps, for each of its characters, where it came from in the original.

_ASCII_TABLE = dict.fromkeys((*range(0, 9), 11, 12, *range(14, 32), 127), " ")
_ASCII_TABLE.update({i: i + 32 for i in range(ord("A"), ord("Z") + 1)})
_PUNCT_FOLD = {"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'}
_PUNCT_FOLD.update({"\u00ab": '"', "\u00bb": '"', "\u201e": '"', "\u2032": "'"})
_RUNS = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]+")


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> tuple[str, bool]:
    """(folded text, attaches to the previous character)."""
    if char in _PUNCT_FOLD:
        return _PUNCT_FOLD[char], False
    if unicodedata.combining(char):
        return "", True
    category = unicodedata.category(char)
    if category == "Cf":
        return "", True
    if category in ("Cc", "Zl", "Zp"):
        return " ", False
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", char).casefold())
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    return "".join(_PUNCT_FOLD.get(c, c) for c in folded), False


@dataclass(frozen=True)
class Folded:
    text: str
    # starts[i], ends[i]: the original characters folded character i came from. None when the
    # text was ASCII and offsets are the same in both.
    starts: list[int] | None = None
    ends: list[int] | None = None

    def original(self, start: int, end: int) -> tuple[int, int]:
        if self.starts is None or self.ends is None:
            return start, end
        if start >= end:
            at = self.starts[start] if start < len(self.starts) else (self.ends or [0])[-1]
            return at, at
        return self.starts[start], self.ends[end - 1]


_ASCII_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def fold(text: str) -> Folded:
    if text.isascii():
        # The common case, and the same length: offsets need no map.
        if _ASCII_CONTROLS.search(text):
            return Folded(text.translate(_ASCII_TABLE))
        return Folded(text.lower())
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for run in _RUNS.finditer(text):
        chunk, base = run.group(), run.start()
        if chunk.isascii():
            out.append(chunk.translate(_ASCII_TABLE))
            starts.extend(range(base, base + len(chunk)))
            ends.extend(range(base + 1, base + len(chunk) + 1))
            continue
        for offset, char in enumerate(chunk):
            position = base + offset
            folded, attaches = _fold_char(char)
            if attaches:
                if ends:
                    ends[-1] = position + 1
                continue
            out.append(folded)
            starts.extend([position] * len(folded))
            ends.extend([position + 1] * len(folded))
    return Folded("".join(out), starts, ends)


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


# --- rules -----------------------------------------------------------------------------------
#
# A pattern is a verbose regular expression over folded text: lower case, no accents, straight
# quotes. <NAME> is replaced by the fragment or lexicon of that name, a lexicon becoming an
# alternation of its entries (in an entry, a space means any whitespace). Every rule lists the
# contexts that may lower it.

NEGATION = "negation"
QUOTATION = "quotation"
MENTION = "mention"
REPORTING = "reporting"
CONDEMNATION = "condemnation"
SPORTS_GAMES = "sports_games"
JOCULAR = "jocular"
ALL_CONTEXTS = frozenset(
    {NEGATION, QUOTATION, MENTION, REPORTING, CONDEMNATION, SPORTS_GAMES, JOCULAR}
)

# How much each context multiplies a match's weight. One context is enough to take a strong
# match (0.9) below the default threshold (0.7); they compound.
CONTEXT_FACTORS = {
    NEGATION: 0.3,
    QUOTATION: 0.6,
    MENTION: 0.4,
    REPORTING: 0.4,
    CONDEMNATION: 0.4,
    SPORTS_GAMES: 0.4,
    # Banter ("te mato si te comes mi tarta jajaja") only just drops a threat below the
    # default threshold; it never lowers dehumanisation or a slur.
    JOCULAR: 0.75,
}


@dataclass(frozen=True)
class Rule:
    name: str
    attributes: tuple[str, ...]
    weight: float
    pattern: str
    lowered_by: frozenset[str] = ALL_CONTEXTS
    # A supporting rule (a weapon named, say) only counts next to another match.
    supporting: bool = False
    # The match starts at the verb ("… should be shot"), its subject comes before it.
    subject_before: bool = False
    # The cue family every match contains (see _compile_language): the rule runs only when
    # the text has one. Default: by the rule's name, "threat.…" needs "violence".
    needs: str = ""


@dataclass(frozen=True)
class LanguageRules:
    lexicons: Mapping[str, Iterable[str]]
    fragments: Mapping[str, str]
    rules: tuple[Rule, ...]
    # Context patterns, by context name. Idioms cancel what they overlap; the others lower.
    idioms: str
    negation: str
    mention: str
    reporting: str
    condemnation: str
    sports_games: str
    # The verbs sports and games borrow ("kill", "shoot", "destroy"), and words that keep a
    # threat a threat even in sports talk ("stab", "burn down").
    sports_ambiguous: str
    unambiguous_violence: str
    jocular: str
    # Literal prefixes one of which every match contains: see _cue_regex.
    cues: tuple[str, ...] = ()


R = Rule  # keeps the rule tables below readable


def _words(text: str) -> tuple[str, ...]:
    """A lexicon written as comma-separated entries (an entry may hold spaces)."""
    return tuple(entry.strip() for entry in text.split(",") if entry.strip())


# English ------------------------------------------------------------------------------------

EN_LEXICONS: dict[str, tuple[str, ...]] = {
    # Groups defined by a protected characteristic, as plural nouns or "<adjective> people".
    "group_race_ethnicity": _words(
        """
        blacks, whites, asians, africans, arabs, latinos, latinas, hispanics, roma, gypsies,
        travellers, jews, aboriginals, natives, kurds, tamils, uyghurs, rohingya
        """
    ),
    "group_national_origin": _words(
        """
        mexicans, somalis, nigerians, haitians, afghans, syrians, iraqis, pakistanis, indians,
        chinese, koreans, vietnamese, filipinos, venezuelans, colombians, ukrainians, russians,
        poles, romanians, albanians, turks, moroccans, algerians, eritreans, sudanese,
        palestinians, israelis, iranians, bangladeshis, gringos, americans, brits, irish,
        germans
        """
    ),
    "group_religion": _words(
        """
        muslims, moslems, jews, christians, catholics, protestants, hindus, sikhs, buddhists,
        atheists, mormons, jehovah's witnesses, shias, sunnis
        """
    ),
    "group_caste": _words(
        """
        dalits, untouchables, lower castes, brahmins, shudras
        """
    ),
    "group_sexual_orientation": _words(
        """
        gays, gay men, lesbians, homosexuals, bisexuals, queers, lgbt people, lgbtq people,
        lgbtq+ people, lgbt folks
        """
    ),
    "group_sex": _words(
        """
        women, men, females, males, girls
        """
    ),
    "group_gender_identity": _words(
        """
        trans people, transgender people, trans women, trans men, transsexuals, transgenders,
        non-binary people, nonbinary people, trans folks, the trans
        """
    ),
    "group_disability": _words(
        """
        the disabled, disabled people, autistic people, autists, the deaf, the blind, people
        with disabilities, people with down syndrome, the mentally ill, mentally ill people,
        wheelchair users
        """
    ),
    "group_disease": _words(
        """
        people with hiv, people with aids, hiv positive people, hiv-positive people, lepers,
        people with leprosy, cancer patients, covid patients
        """
    ),
    "group_migrants": _words(
        """
        migrants, immigrants, refugees, asylum seekers, illegals, illegal immigrants, illegal
        aliens, aliens, foreigners, newcomers, boat people
        """
    ),
    # Adjectives that name a group when followed by people, men, women, kids…
    "group_adjectives": _words(
        """
        black, white, brown, asian, african, arab, jewish, muslim, christian, catholic, hindu,
        sikh, gay, lesbian, bisexual, queer, trans, transgender, disabled, autistic, deaf,
        blind, chinese, mexican, indian, somali, nigerian, haitian, afghan, syrian, roma,
        romani, immigrant, migrant, refugee, dalit, lower caste, hiv positive, hiv-positive
        """
    ),
    "group_singular": _words(
        """
        migrant, immigrant, refugee, asylum seeker, illegal, foreigner, muslim, jew, christian,
        catholic, hindu, sikh, gay, lesbian, homosexual, trans person, transgender person,
        woman, arab, mexican, gypsy, dalit, disabled person, autistic person, african
        """
    ),
    # Dehumanising terms. Plural nouns and adjectives may follow a few words after the verb
    # ("are invading like locusts"); singular and mass nouns need an article or an intensifier
    # right before them, so "the animal shelter" or "taking out the trash" do not count.
    "dehumanising_plural": _words(
        """
        vermin, rats, cockroaches, roaches, parasites, leeches, lice, maggots, locusts, insects,
        termites, animals, beasts, savages, barbarians, apes, monkeys, pigs, swine, dogs,
        subhumans, sub-humans, untermenschen, demons, devils, freaks, abominations, diseases,
        useless eaters, mongrels, breeders, property, objects, burdens, perverts, groomers,
        degenerates, breeding stock
        """
    ),
    "dehumanising_adjectives": _words(
        """
        subhuman, sub-human, inhuman, less than human, not fully human, dirty, filthy, unclean,
        impure, diseased, verminous, infested, defective
        """
    ),
    "dehumanising_singular": _words(
        """
        disease, virus, cancer, plague, pestilence, infestation, parasite, rat, cockroach,
        animal, beast, pig, abomination, pest, tumor, tumour, blight, scourge, contagion,
        infection, vermin, burden
        """
    ),
    "dehumanising_mass": _words(
        """
        scum, filth, garbage, trash, rubbish, waste, excrement
        """
    ),
    "dehumanising_collective": _words(
        """
        infestation, plague, invasion, hordes?, swarms?, vermin, scourge
        """
    ),
    "humanity": _words(
        """
        people, human, humans, human beings, persons, real people
        """
    ),
    # Placeholder slurs. The repository keeps no real slurs: a deployment adds its own list
    # with RuleScorer(extra_lexicons={"en": {"slurs": [...]}}).
    "slurs": _words(
        """
        xslur, yslur, zslur
        """
    ),
    "insults": _words(
        """
        idiot, moron, imbecile, cretin, fool, liar, coward, loser, scumbag, dumbass, jackass,
        jerk, clown, dipshit, asshole, bastard, halfwit, nitwit, degenerate, lowlife, piece of
        shit, rat, dog, pig, snake, cow
        """
    ),
}

EN_FRAGMENTS = {
    "DET": r"(?:the|that|this|those|these|their|his|her|your|ur|every|all|some|any|a|an)",
    "PRON": (
        r"(?:you|u|ya|him|her|them|'em|y'all|you\s+all|everyone|everybody|anyone"
        r"|all\s+of\s+(?:you|them))\b"
    ),
    # A person or thing the violence is done to; never "me", "us", "it" or "my …": self-directed
    # and venting hyperbole ("someone shoot me", "I'll strangle my code reviewer") are not
    # threats. Known blind spot: real threats against "my wife" read as venting.
    "OBJ": r"(?:<PRON>|<DET>\s+(?:[\w'-]+\s+){0,2}?[\w'-]+)",
    "BODY": (
        r"(?:legs?|arms?|neck|skull|face|jaw|throat|head|kneecaps?|teeth|fingers|ribs|spine"
        r"|nose|brains?)"
    ),
    # Violent verbs in the base form or -ing, each with what it must be done to.
    "VIOLENCE": r"""(?:
        (?:kill|killing|murder|murdering|shoot|shooting|stab|stabbing|hang|hanging|lynch
          |lynching|behead|beheading|decapitate|slaughter|slaughtering|butcher|butchering
          |massacre|massacring|torch|torching|burn|burning|firebomb|firebombing|bomb|bombing
          |blow\s+up|blowing\s+up|strangle|strangling|gas|gassing|rape|raping|exterminate
          |exterminating|wipe\s+out|wiping\s+out|gun\s+down|gunning\s+down|poison|poisoning
          |kidnap|kidnapping|abduct|abducting|burn\s+down|burning\s+down|shoot\s+up|shooting\s+up
          |murk|merk|hunt\s+down|hunting\s+down|mow\s+down|mowing\s+down
          |drown|drowning|torture|torturing|knife|shank|set\s+fire\s+to|setting\s+fire\s+to
          |beat\s+up|beating\s+up)\s+<OBJ>
      | (?:end|hurt|harm|punch|choke|beat|cut|slice|bury)\s+<PRON>
      | (?:hunt|hunting|beat|beating|gun|gunning|string|stringing|burn|burning|wipe)
          \s+<PRON>\s+(?:down|up|out|to\s+death|alive)
      | (?:break|breaking|smash|smashing|cut|slit|slitting|bash|cave|crack|snap|slice)
          \s+(?:your|ur|his|her|their|ya)\s+(?:[\w'-]+\s+)?<BODY>
      | put\s+(?:a\s+)?(?:bullet|bullets|round|knife|blade|hole)s?\s+(?:in|into|through)\s+<OBJ>
      | put\s+<PRON>\s+(?:in|into|six\s+feet)\s+(?:the\s+ground|a\s+(?:grave|coffin|body\s+bag|box)
          |under)
      | break\s+every\s+bone\s+in\s+(?:your|ur|his|her|their)\s+(?:body|bodies)
      | (?:run|running|mow|mowing)\s+<OBJ>\s+(?:over|down)\b
      | make\s+<PRON>\s+(?:bleed|suffer|scream|disappear
          |beg\s+for\s+(?:your|his|her|their)\s+li(?:fe|ves))
      | rid\s+(?:us|me|the\s+world|the\s+country|this\s+country)\s+of\s+<OBJ>
      | put(?:ting)?\s+<PRON>\s+in\s+(?:the\s+)?(?:hospital|icu|intensive\s+care)
      | take\s+<OBJ>\s+out\s+(?:permanently|for\s+good|back|of\s+(?:the\s+)?(?:picture|equation))
    )""",
    "PARTICIPLE": r"""(?:killed|shot|shot\s+dead|hanged|hung|executed|lynched|beheaded|gassed
        |exterminated|wiped\s+out|put\s+down|burn(?:ed|t)(?:\s+alive)?|stabbed|beaten|lined\s+up
        |wiped\s+off\s+(?:the\s+face\s+of\s+the\s+earth|the\s+map)|kidnapped|abducted|purged
        |liquidated|annihilated|ethnically\s+cleansed|run\s+over|mowed\s+down
        |murdered|eradicated|eliminated|culled|thrown\s+off|strung\s+up|tortured|raped
        |slaughtered|massacred|dragged|shot\s+on\s+sight|put\s+(?:up\s+)?against\s+a\s+wall
        |sterili[sz]ed|euthani[sz]ed|drowned|stoned|decapitated|castrated|gunned\s+down)""",
    # Words between an intent or a call and the violence: "I'm going to find out where you
    # live and put a bullet…". Never across punctuation.
    "GAP": r"(?:[\w'-]+\s+){0,8}?",
    "SHORT_GAP": r"(?:[\w'-]+\s+){0,2}?",
    "GROUP": r"""(?:(?:the|these|those|all|most|our|your|such|so\s+many|all\s+the|all\s+these)\s+)?
        (?:<GROUP_NOUN>|<group_adjectives>\s+(?:people|persons|folks|men|women|kids|children
          |immigrants|migrants|families|communities|community|population|guys))\b""",
    "GROUP_NOUN": (
        r"(?:<group_race_ethnicity>|<group_national_origin>|<group_religion>|<group_caste>"
        r"|<group_sexual_orientation>|<group_sex>|<group_gender_identity>|<group_disability>"
        r"|<group_disease>|<group_migrants>)"
    ),
    "COPULA": (
        r"(?:are|r|were|'re|remain|become|act|behave|breed|multiply|spread|swarm|crawl"
        r"|are\s+nothing\s+but|aren't|are\s+not)"
    ),
    "DEHUMANISING": r"""(?:
        (?:[\w'-]+\s+){0,4}?(?:<dehumanising_plural>|<dehumanising_adjectives>)
      | (?:[\w'-]+\s+){0,3}?(?:a|an|the|one|like\s+a|like\s+an)\s+(?:[\w'-]+\s+){0,2}?
          (?:<dehumanising_singular>|<dehumanising_mass>)
      | (?:(?:just|nothing\s+but|pure|utter|total|absolute|human|worthless|filthy|dirty|such)
          \s+)+(?:<dehumanising_mass>|<dehumanising_singular>)
      | <dehumanising_mass>
    )\b""",
    "SLUR": r"(?:<slurs>)s?",
    "INSULT_WORD": r"(?:<insults>)s?",
}

EN_RULES = (
    # THREAT: intent, calls to action, conditional threats, wishes and intimidation.
    R(
        "threat.intent",
        (THREAT,),
        0.9,
        r"""\b(?:
            (?:i|we)\s*(?:'ll|will|shall|'m\s+going\s+to|am\s+going\s+to|'re\s+going\s+to
              |are\s+going\s+to|'m\s+gonna|am\s+gonna|'re\s+gonna|are\s+gonna|gonna|wanna
              |want\s+to|plan\s+to|intend\s+to|promise\s+to|'m\s+about\s+to)
            | im\s+(?:going\s+to|gonna) | ima | i'ma | imma
          )\s+<GAP><VIOLENCE>
          | (?:^|(?<=[.!?,\n]))[^\S\n]*gonna\s+<GAP><VIOLENCE>""",
    ),
    R(
        "threat.call_to_action",
        (THREAT,),
        0.9,
        r"""\b(?:let'?s|lets|let\s+us
          | we\s+(?:should|must|need\s+to|have\s+to|gotta|ought\s+to|got\s+to)
          | (?:someone|somebody|anyone|anybody|everyone|everybody|people|y'all|you\s+all|they)
              \s+(?:should|must|needs?\s+to|has\s+to|have\s+to|ought\s+to|go|gotta|better
              |please)
          | time\s+to | it's\s+time\s+to
          )\s+(?:go\s+|start\s+|just\s+|finally\s+|all\s+|please\s+|and\s+)*<GAP>
            <VIOLENCE>""",
    ),
    R(
        "threat.conditional",
        (THREAT,),
        0.85,
        r"""\bif\s+[^.!?\n]{1,100}?\b(?:i|we|then\s+we|then\s+i)\s+(?:just\s+|all\s+)?<VIOLENCE>""",
    ),
    R(
        "threat.relative_call",
        (THREAT,),
        0.85,
        r"""\b(?:that|who|whom)\s+(?:we|someone|somebody|you|people)\s+(?:should|must|need\s+to
            |have\s+to|ought\s+to|gotta)\s+(?:just\s+|all\s+)?(?:kill|exterminate|shoot|hang
            |lynch|burn|gas|wipe\s+out|slaughter|behead|execute|eradicate|put\s+down)\b""",
    ),
    R(
        "threat.imperative",
        (THREAT,),
        0.85,
        r"""(?:^|(?<=[.!?\n]))[^\S\n]*(?:somebody\s+|someone\s+|go\s+|now\s+|just\s+)?
            (?:(?:kill|shoot|stab|burn|torch|hang|lynch|behead|bomb|gas|firebomb)\s+<OBJ>
            | put\s+<PRON>\s+(?:in|into|six\s+feet)\s+(?:the\s+ground
              |a\s+(?:grave|coffin|body\s+bag)|under)
            | take\s+<OBJ>\s+out\s+(?:permanently|for\s+good|back))""",
    ),
    R(
        "threat.should_be_killed",
        (THREAT,),
        0.85,
        r"""\b(?:should|must|ought\s+to|needs?\s+to|has\s+to|have\s+to|got\s+to|gotta
            |deserves?\s+to)
            \s+(?:all\s+|just\s+|really\s+|not\s+|never\s+|simply\s+)*(?:be|get)\s+
            (?:[\w'-]+\s+){0,3}?(?:and\s+)?<PARTICIPLE>\b""",
        subject_before=True,
    ),
    R(
        "threat.going_to_get_hurt",
        (THREAT,),
        0.8,
        r"""\b(?:is|are|'s|'re)\s+(?:going\s+to\s+get|gonna\s+get|getting)\s+(?:\w+\s+)?
            (?:stabbed|shot|killed|hurt|beaten|murdered|jumped|smoked|lit\s+up|merked)\b
          | \b(?:is|are|'s|'re)\s+(?:going\s+to|gonna)\s+catch\s+(?:a\s+bullet|these\s+hands
            |a\s+fade|hands|a\s+stray)""",
        subject_before=True,
    ),
    R(
        "threat.will_hang",
        (THREAT,),
        0.75,
        r"""\b(?:will|'ll|shall|gonna|going\s+to)\s+(?:hang|swing|burn|pay\s+with\s+(?:their|his|her)
            \s+li(?:fe|ves))\s+for\b""",
        subject_before=True,
    ),
    R(
        "threat.hospital",
        (THREAT,),
        0.8,
        r"""\b(?:i|we)(?:'m|\s+am|'re|\s+are|'ll|\s+will)?\s+(?:gonna\s+|going\s+to\s+)?(?:put|putting
            |send|sending)\s+<PRON>\s+(?:to|in|into|six\s+feet)\s+(?:the\s+)?(?:hospital|icu
            |intensive\s+care|an\s+early\s+grave|ground|under|a\s+wheelchair|a\s+coffin)\b""",
    ),
    R(
        "threat.bringing_weapon",
        (THREAT,),
        0.75,
        r"""\b(?:i'm|im|i\s+am|we're|we\s+are|i'll|we'll|i\s+will|we\s+will|gonna)\s+(?:bringing
            |bring|taking|take|carrying|packing)\s+(?:a|my|the|our|some)\s+(?:knife|knives|gun|guns
            |rifle|rifles|pistol|machete|axe|bomb|acid)\s+(?:to|into)\b""",
    ),
    R(
        "threat.deserves_death",
        (THREAT,),
        0.85,
        r"""\b(?:deserves?|needs?|earned)\s+(?:to\s+(?:die|hang|burn|rot|bleed)|a\s+bullet
            |a\s+slow\s+death|death|the\s+rope|the\s+noose|a\s+rope|to\s+be\s+put\s+down
            |to\s+have\s+(?:her|his|their|your)\s+(?:throat|head|neck|skull)\s+(?:cut|slit
              |blown\s+off|bashed\s+in|caved\s+in|smashed))""",
        subject_before=True,
    ),
    R(
        "threat.death_wish",
        (THREAT,),
        0.8,
        r"""\bi\s+hope\s+(?:someone|somebody|they|he|she|you)\s+(?:\w+\s+)?
            (?:shoots?|kills?|stabs?|murders?|hangs?|burns?|rapes?)\s+(?:you|him|her|them)
          | \bi\s+hope\s+(?:you|he|she|they|(?:your|his|her|their)\s+[\w'-]+(?:\s+[\w'-]+)?)
            \s+(?:all\s+)?(?:dies?|(?:gets?|is|are)\s+(?:shot|killed|stabbed|raped|murdered|hanged
              |lynched|beaten\s+to\s+death|burned\s+alive))\b
          | \bi\s+hope\s+(?:[\w'-]+\s+){0,4}?(?:bomb|bullet|missile|car|truck|bus|train|plane)
            \s+(?:lands|hits|kills|runs\s+over|falls\s+on|crashes\s+into)\s+(?:on\s+)?(?:you|your
            |him|her|them|their)\b""",
    ),
    R(
        "threat.you_are_dead",
        (THREAT,),
        0.8,
        r"""\b(?:you(?:'re|\s+are|\s+r)|u\s*r|ur|you'?ll\s+be|you\s+will\s+be
            |you\s+and\s+(?:your|ur)\s+[\w'-]+\s+(?:will\s+be|'ll\s+be|are|r))\s+
            (?:so\s+|already\s+|a\s+)?dead(?:\s+meat|\s+man)?\b
            (?!\s+(?:wrong|right|serious|tired|set|last|on|to\s+me|inside|weight|end|cent|even
              |beat|broke|ass|funny|on))""",
        lowered_by=ALL_CONTEXTS - {NEGATION},
    ),
    R(
        "threat.armed_violence",
        (THREAT,),
        0.85,
        r"""\b(?:take\s+up\s+arms|(?:grab|bring|load)\s+(?:your|ur|the)\s+(?:guns?|rifles?|weapons?|pitchforks
            |torches|ammo|knives)|lock\s+and\s+load|start\s+shooting|open\s+fire\s+on
            |firing\s+squad\s+for|(?:rope|noose|gallows|guillotine)s?\s+for\s+(?:every|all|them
              |those|these|the)\b|shoot\s+up\s+(?:the|a|this|that|our|your)\s+\w+
            |bullet\s+in\s+(?:your|ur|his|her|their)\s+(?:head|brain|skull|face|chest)
            |string\s+(?:them|him|her|'em|you|(?:the|those|these|every|all)\s+\w+)\s+up
            |swing\s+from\s+(?:a|the)\s+(?:rope|tree|lamp\s*post|lamppost|gallows|noose|bridge))""",
    ),
    R(
        "threat.knows_where_you_live",
        (THREAT,),
        0.75,
        r"""\b(?:i|we)\s+know\s+where\s+(?:you|u|he|she|they|your\s+[\w']+|ur\s+[\w']+)
            \s+(?:[\w']+\s+)?(?:live|lives|sleep|sleeps|work|works|park|go|goes|stay|are)\b
          | \b(?:i|we)\s+(?:know|have|got|found)\s+(?:your|ur|his|her)\s+(?:home\s+)?address\b""",
        lowered_by=ALL_CONTEXTS - {NEGATION},
    ),
    R(
        "threat.never_walk_again",
        (THREAT,),
        0.75,
        r"""\b(?:you|he|she|they|u)(?:'ll|\s+will)?\s+never\s+(?:walk|see|speak|talk|wake\s+up)
            \s+again
          | \b(?:you|he|she|they|u)(?:'ll|\s+will)\s+(?:be\s+|end\s+up\s+)(?:sleeping\s+|lying\s+
            |buried\s+)?in\s+a\s+(?:ditch|grave|coffin|body\s+bag|box|wheelchair)""",
        lowered_by=ALL_CONTEXTS - {NEGATION},
    ),
    R(
        "threat.intimidation",
        (THREAT,),
        0.5,
        r"""\b(?:watch\s+(?:your|ur)\s+back|(?:better|should)\s+watch\s+(?:out|(?:his|her|their|your
            |ur)\s+backs?)|find\s+out\s+where\s+(?:you|he|she|they)\s+live
            |you(?:'re|\s+are)\s+(?:going\s+to|gonna)\s+regret|you'?ll\s+regret
            |make\s+(?:you|him|her|them)\s+pay|sleep\s+with\s+one\s+eye\s+open
            |your\s+days\s+are\s+numbered|i'm\s+coming\s+for\s+(?:you|him|her|them)
            |(?:show\s+up|turn\s+up|come|coming|going|drop\s+by)\s+(?:at|to|round\s+to|over\s+to|by)
              \s+(?:your|her|his|their|ur)\s+(?:house|home|place|door|work|office|school)
            |pay\s+<OBJ>\s+a\s+(?:little\s+)?visit)\b""",
    ),
    R(
        "threat.weapon",
        (THREAT,),
        0.5,
        r"""\b(?:knife|knives|gun|guns|rifle|rifles|pistol|glock|shotgun|machete|axe|strap
            |acid|ak-?47|ar-?15|ammo|bullets?|rope|noose|gasoline|petrol|molotovs?|pipe\s+bombs?)\b""",
        supporting=True,
    ),
    # IDENTITY_ATTACK: dehumanising a group, denying its humanity, calling for its removal.
    R(
        "identity.dehumanising",
        (IDENTITY_ATTACK,),
        0.9,
        r"\b<GROUP>\s+<COPULA>\s+<DEHUMANISING>",
    ),
    R(
        "identity.dehumanising_singular",
        (IDENTITY_ATTACK,),
        0.9,
        r"""\b(?:every|each|any|a|the\s+average|your\s+average)\s+<group_singular>\s+
            (?:is|'s)\s+<DEHUMANISING>""",
    ),
    R(
        "identity.collective",
        (IDENTITY_ATTACK,),
        0.85,
        r"""\b<group_singular>\s+<dehumanising_collective>\b
          | \b<dehumanising_collective>\s+of\s+<GROUP>""",
    ),
    R(
        "identity.denied_humanity",
        (IDENTITY_ATTACK,),
        0.9,
        r"""\b<GROUP>\s+(?:are\s+not|aren't|are\s+no\s+longer|r\s+not|will\s+never\s+be)
            \s+(?:even\s+|real\s+|fully\s+)?<humanity>\b
          | \b<GROUP>\s+(?:are|r)\s+(?:[\w'-]+\s+){1,5}?(?:[\w'-]+),\s+not\s+<humanity>\b""",
        lowered_by=ALL_CONTEXTS - {NEGATION},
        needs="humanity",
    ),
    R(
        "identity.elimination",
        (IDENTITY_ATTACK, THREAT),
        0.9,
        r"""\b<GROUP>\s+(?:should|must|need\s+to|needs\s+to|ought\s+to|deserve\s+to|have\s+to)
            \s+(?:all\s+|just\s+|really\s+|not\s+|never\s+)*(?:be|get)\s+(?:\w+\s+)?<PARTICIPLE>\b""",
        needs="violence",
    ),
    R(
        "identity.eugenics",
        (IDENTITY_ATTACK,),
        0.85,
        r"""\b<GROUP>\s+(?:should|must|ought\s+to)\s*(?:n't|\s+not|\s+never)\s+(?:be\s+allowed\s+to\s+)?
            (?:breed|reproduce|have\s+(?:kids|children|babies)|exist|live)\b""",
        ALL_CONTEXTS - {NEGATION},
        needs="violence",
    ),
    # SEVERE_TOXICITY: slurs (placeholders here; see the lexicon).
    # A negated sentence still uses the slur ("we don't hire …").
    R("severe.slur", (SEVERE_TOXICITY,), 0.9, r"\b<SLUR>\b", ALL_CONTEXTS - {NEGATION}),
    # INSULT: abuse aimed at a person. Reported, never escalated.
    R(
        "insult.addressed",
        (INSULT,),
        0.75,
        r"""\b(?:you(?:'re|\s+are)?|u\s+r|ur|what)\s+(?:a|an|such\s+an?|the\s+biggest)?\s*
            (?:[\w'-]+\s+){0,2}?<INSULT_WORD>\b
          | \b(?:is|are)\s+(?:a|an|such\s+an?)\s+(?:[\w'-]+\s+)?<INSULT_WORD>
            (?:\s+and\s+an?\s+<INSULT_WORD>)?\b
          | \blike\s+the\s+(?:[\w'-]+\s+)?<INSULT_WORD>\s+you\s+are
          | \b(?:shut\s+up|stfu|fuck\s+off)\s*,?\s+(?:you\s+)?(?:[\w'-]+\s+)?(?:<INSULT_WORD>
            |<SLUR>)\b""",
    ),
)

EN_CONTEXTS = {
    "idioms": r"""\b(?:
        kill(?:s|ed|ing)?\s+it\b | (?:is|are|was|'s|'re)\s+killing\s+me
      | shoot(?:ing)?\s+(?:me|you|us|him|her|them)\s+(?:a|an)\s+(?:quick\s+)?(?:message|text|email
          |e-mail|dm|line|note|pm|call)
      | shoot(?:ing)?\s+(?:the|a|this|that|our|my|your|some)\s+(?:[\w'-]+\s+)?(?:video|film|movie
          |scene|photos?|pictures?|pics|footage|wedding|episode|commercial|ad|campaign|hoops
          |breeze|moon|messenger)
      | shoot\s+(?:your|my|his|her)\s+shot | take\s+a\s+stab\s+at | break\s+a\s+leg
      | dying\s+(?:of|from)\s+laughter | (?:dying|died)\s+laughing | to\s+die\s+for
      | dressed\s+to\s+kill | kill\s+two\s+birds | kill(?:ing)?\s+(?:some\s+|the\s+)?time
      | kill\s+(?:the|this|that|a)\s+(?:lights?|engine|music|mood|vibe|buzz|process|task|job
          |tab|app|server|bill|deal|idea|project|proposal|plan|feature|motion|amendment|pain
          |germs|bacteria|weeds|fire|conversation|joke|bottle|drink|pint|beer|glass|round)
      | blow(?:ing|n)?\s+up\s+(?:the\s+)?(?:my|your|his|her)?\s*(?:phone|balloons?|photo|picture)
      | burn(?:ing)?\s+(?:the|some|those|a\s+few|a)\s+(?:midnight\s+oil|calories|fat|candle|toast
          |rubber|boats|ships|bridges?|cd|dvd|sage|incense)
      | (?:could|would)\s+murder\s+a\s+(?:pint|beer|burger|pizza|coffee|curry|drink)
      | bomb(?:ed)?\s+(?:the|that|my|this)\s+(?:exam|test|interview|audition)
      | hang\s+(?:the|some|those|a)\s+(?:picture|pictures|laundry|washing|decorations|lights
          |painting|poster|coat)
      | drown\s+(?:your|my|our)\s+sorrows
      | stab(?:s|bed|bing)?\s+(?:[\w'-]+\s+){1,2}in\s+the\s+back
    )""",
    "negation": (
        r"\b(?:not|never|nobody|no\s+one|noone|neither|nor|no(?!\s+(?:better|different|more)"
        r"\s+than))\b|n't\b|\b(?:dont|wont|cant|wouldnt|shouldnt|arent|isnt|didnt)\b"
    ),
    # Speech being mentioned rather than made: "saying that…", "the idea that…". The check
    # ignores "I say", "I think": the speaker's own voice.
    "mention": r"""\b(?:says?|said|saying|claim(?:s|ed|ing)?|thinks?|thinking|believes?|believing
        |shouted|shouting|wrote|writes|posted|posts|tweeted|tweets|chanted|chanting|called
        |calling|describ(?:e|es|ed|ing)|the\s+idea|the\s+notion|the\s+claim|the\s+lie|the\s+myth)
        \s+(?:that\s+)?""",
    "reporting": r"""\b(?:according\s+to|allegedly|reportedly|testified|testimony|court\s+heard
        |(?:police|officials?|authorities|prosecutors?|investigators?|witnesses|the\s+fbi|fbi
          |the\s+court|a\s+court|judge|court\s+documents|reuters|spokesperson|spokesman)
          \s+(?:said|say|says|told|confirmed|reported|report|testified|heard|rules?|ruled|found
            |allege[sd]?)
        |(?:was|were)\s+(?:arrested|charged|sentenced|convicted|jailed)
        |(?:arrested|charged|sentenced|convicted|jailed)\s+(?:for|over|after)
        |sentenced\s+to|accused\s+of|on\s+trial)\b""",
    "condemnation": r"""\b(?:(?:we|i)\s+(?:strongly\s+)?condemn|condemn(?:s|ed|ing|ation)?
        |(?:is|was|it's|that's)\s+(?:\w+\s+)?(?:racism|racist|bigotry|bigoted|hate\s+speech
          |propaganda|incitement|dehumani[sz]ing|vile|disgusting|abhorrent|unacceptable|wrong
          |cruel|unhinged|a\s+crime|shameful|false|a\s+lie|not\s+ok)
        |(?:disgusting|vile|shameful|wrong|cruel|unacceptable|racist)\s+to\s+(?:call|say
          |describe|wish|threaten|compare)
        |should\s+be\s+ashamed|never\s+again|stop\s+(?:calling|saying|comparing|spreading)
        |(?:don'?t|do\s+not|never)\s+(?:say|call)|push\s+back|stand\s+(?:with|against|up\s+to)
        |nazi\s+propaganda|dehumani[sz]ing\s+(?:language|rhetoric)|language\s+that\s+preceded
        |hate\s+speech|not\s+free\s+speech|never\s+(?:justified|ok|okay|acceptable|the\s+answer)
        |report(?:ing)?\s+(?:every|this|these|all)\s+(?:account|post|tweet)s?
        |why\s+is\s+.{1,80}\s+trending|look\s+in\s+a\s+mirror|has\s+consequences)\b""",
    "sports_games": r"""(?:\b\d{1,3}\s*-\s*\d{1,3}\b|\b(?:game|games|gaming|match|season|league
        |cup|final|finals|halftime|half|goal|goals|goalie|keeper|striker|defender|defen[cs]e
        |offen[cs]e|quarterback|pitcher|inning|touchdown|penalty|free\s+kick|corner|serve
        |backhand|round|level|boss|raid|dungeon|respawn|spawn|headshot|killstreak|kill\s+streak
        |frag|noob|lobby|server|loot|quest|xp|pvp|fps|valorant|warzone|fortnite|call\s+of\s+duty
        |minecraft|overwatch|apex|elden\s+ring|dark\s+souls|counter-?strike|csgo|cs2|dota
        |league\s+of\s+legends|jungler|chess|checkmate|team|teams|player|players|playoffs
        |play-offs|super\s+bowl|nba|nfl|premier\s+league|ranked|potions?|npc|mobs?|dragons?
        |zombies?|orcs?|healer|tank|dps|damage|rogue|mage|quest|achievement|semi\s+final
        |semi-final|title|title\s+race)\b)""",
    "sports_ambiguous": (
        r"\b(?:kill\w*|murder\w*|shoot\w*|shot|slaughter\w*|butcher\w*|massacr\w*|destroy\w*"
        r"|crush\w*|bomb\w*|execut\w*|snip\w*|smok\w*|bur(?:y|ied))\b"
    ),
    "unambiguous_violence": (
        r"\b(?:stab|stabbing|hang|hanging|lynch|behead|rape|torch|gas|gassing|beat\s+up|knife"
        r"|bullet|burn|strangle|slit|throat|skull|shoot\s+up|protesters|journalists?)\b"
    ),
    "jocular": (
        r"\b(?:lol|lmao|lmfao|rofl|haha\w*|hehe\w*|jk|just\s+kidding|kidding)\b"
        r"|[\U0001F602\U0001F923\U0001F606\U0001F605\U0001F61C\U0001F61D\U0001F643]"
    ),
}

# Spanish ------------------------------------------------------------------------------------

ES_LEXICONS: dict[str, tuple[str, ...]] = {
    "group_race_ethnicity": _words(
        """
        negros, negras, blancos, gitanos, gitanas, arabes, judios, judias, latinos, africanos,
        asiaticos, indigenas, moros, payos
        """
    ),
    "group_national_origin": _words(
        """
        venezolanos, colombianos, ecuatorianos, peruanos, bolivianos, marroquies, argelinos,
        rumanos, chinos, senegaleses, nigerianos, ucranianos, rusos, mexicanos, argentinos,
        cubanos, dominicanos, haitianos, paquistanies, pakistanies, sirios, afganos, hondurenos,
        nicaraguenses, guatemaltecos, salvadorenos, catalanes, gallegos, vascos, andaluces,
        sudamericanos, latinoamericanos, norteafricanos, subsaharianos, magrebies, sudacas
        """
    ),
    "group_religion": _words(
        """
        musulmanes, musulmanas, judios, cristianos, catolicos, evangelicos, protestantes,
        hindues, budistas, ateos, mormones
        """
    ),
    "group_caste": _words(
        """
        dalits, intocables
        """
    ),
    "group_sexual_orientation": _words(
        """
        homosexuales, gays, gais, lesbianas, bisexuales, queers
        """
    ),
    "group_sex": _words(
        """
        mujeres, hombres, feministas
        """
    ),
    "group_gender_identity": _words(
        """
        trans, transexuales, transgenero, travestis, no binarios
        """
    ),
    "group_disability": _words(
        """
        discapacitados, minusvalidos, autistas, sordos, ciegos, enfermos mentales, personas con
        discapacidad
        """
    ),
    "group_disease": _words(
        """
        enfermos de sida, seropositivos, personas con vih, enfermos de vih, leprosos
        """
    ),
    "group_migrants": _words(
        """
        inmigrantes, migrantes, emigrantes, refugiados, extranjeros, ilegales, menas, sin
        papeles, inmigrantes ilegales, solicitantes de asilo, pateras
        """
    ),
    "group_adjectives": _words(
        """
        negras, gitanas, judias, musulmanas, trans, homosexuales, migrantes, refugiadas, con
        discapacidad, racializadas, lgtb, lgtbi, lgbt
        """
    ),
    "group_singular": _words(
        """
        inmigrante, migrante, refugiado, extranjero, ilegal, mena, moro, musulman, judio,
        gitano, negro, homosexual, gay, trans, sudamericano
        """
    ),
    "dehumanising_plural": _words(
        """
        ratas, cucarachas, parasitos, animales, bestias, salvajes, alimanas, sabandijas, plagas,
        monos, cerdos, perros, aberraciones, subhumanos, infrahumanos, demonios, piojos,
        garrapatas, sanguijuelas, langostas, bichos, gusanos, insectos, engendros, enfermos,
        sucios, inmundos, ganado, basura, escoria, mierda, lacra, chusma, gentuza, excremento
        """
    ),
    "dehumanising_singular": _words(
        """
        plaga, enfermedad, cancer, virus, lacra, peste, infeccion, aberracion, rata, cucaracha,
        parasito, animal, bestia, tumor, escoria, basura, infestacion, epidemia, cancer
        """
    ),
    "dehumanising_collective": _words(
        """
        plaga, invasion, horda, hordas, infestacion, enjambre
        """
    ),
    "humanity": _words(
        """
        personas, humanos, seres humanos, gente, persona
        """
    ),
    "slurs": _words(
        """
        xslur, yslur, zslur
        """
    ),
    "insults": _words(
        """
        idiota, imbecil, gilipollas, inutil, inutiles, cobarde, mentiroso, mentirosa, payaso,
        cretino, estupido, estupida, tonto, cabron, capullo, sinverguenza, sinverguenzas,
        canalla, rata, perro, cerdo, ladrones, ladron, hijo de puta, hija de puta, hijos de puta
        """
    ),
}

ES_FRAGMENTS = {
    "CLITIC": r"(?:lo|la|los|las|le|les|te|os)",
    "ES_OBJ": (
        r"(?:a|al|el|la|los|las|esa|ese|esos|esas|este|esta|estos|estas|su|sus|tu|tus|todos"
        r"|todas|cada)\b"
    ),
    "ES_INF": r"""(?:matar|asesinar|disparar|apunalar|acuchillar|ahorcar|colgar|linchar|quemar
        |incendiar|fusilar|degollar|decapitar|exterminar|aniquilar|violar|envenenar|gasear
        |rajar|masacrar|ejecutar|torturar|erradicar)""",
    "ES_VIOLENCE": r"""(?:
        <ES_INF><CLITIC>\b
      | <ES_INF>\s+<ES_OBJ>
      | (?:pegar|meter|descerrajar)<CLITIC>?\s+<ES_SHOT>
      | (?:prender|pegar|meter)(?:le|les)?\s+fuego\s+(?:a|al)\b
      | (?:reventar|partir|romper|abrir)<CLITIC>?\s+(?:la|las|el|los)\s+(?:cabeza|cara|piernas
          |craneo|crisma|cuello|brazos)
    )""",
    "ES_SHOT": (
        r"(?:(?:un|dos|tres|varios)\s+(?:tiros?|balazos?|navajazos?)|una\s+bala|un\s+disparo)"
    ),
    # Third-person subjunctive: "que alguien le meta…", "ojalá lo maten".
    "ES_SUBJ": r"""(?:maten?|asesinen?|reviente[n]?\s+la\s+cabeza|quemen?|cuelguen?|ahorquen?
        |apunalen?|fusilen?|violen?|linchen?|degollen?|atropellen?|(?:pegue|peguen|meta|metan)
        \s+<ES_SHOT>)""",
    "ES_DET": (
        r"(?:(?:los|las|esos|esas|estos|estas|todos\s+los|todas\s+las|todos\s+esos"
        r"|todas\s+esas|tantos|muchos)\s+)"
    ),
    "GROUP": r"""<ES_DET>?(?:<GROUP_NOUN>|personas\s+<group_adjectives>|mujeres\s+trans
        |hombres\s+trans)\b""",
    "GROUP_NOUN": (
        r"(?:<group_race_ethnicity>|<group_national_origin>|<group_religion>|<group_caste>"
        r"|<group_sexual_orientation>|<group_sex>|<group_gender_identity>|<group_disability>"
        r"|<group_disease>|<group_migrants>)"
    ),
    "DEHUMANISING": r"""(?:
        (?:[\w'-]+\s+){0,3}?<dehumanising_plural>
      | (?:[\w'-]+\s+){0,2}?(?:un|una|el|la|como\s+una?|como)\s+(?:[\w'-]+\s+){0,2}?
          <dehumanising_singular>
    )\b""",
    "SLUR": r"(?:<slurs>)s?",
    "INSULT_WORD": r"(?:<insults>)",
}

ES_RULES = (
    R(
        "threat.intent",
        (THREAT,),
        0.9,
        r"""\b(?:<CLITIC>\s+(?:voy|vamos)\s+a\s+<ES_INF>
          | (?:voy|vamos)\s+a\s+<ES_VIOLENCE>
          | (?:te|os)\s+(?:mato|asesino|apunalo|acuchillo|ahorco|cuelgo|quemo|reviento|rajo
              |degollo|pego\s+un\s+tiro|meto\s+un\s+tiro|parto\s+la\s+(?:cara|cabeza)
              |rompo\s+las\s+piernas|vuelo\s+la\s+cabeza))\b""",
    ),
    R(
        "threat.call_to_action",
        (THREAT,),
        0.9,
        r"""\b(?:hay\s+que|habria\s+que|(?:alguien|algun\w*)\s+(?:deberia|tendria\s+que
            |tiene\s+que|podria|deberian)|deberiamos|tenemos\s+que|a\s+por\s+ellos\s+y)
            \s+(?:[\w]+\s+){0,2}?<ES_VIOLENCE>
          | \b(?:matemos|quememos|colguemos|ahorquemos|linchemos|fusilemos|apunalemos
              |incendiemos|exterminemos|asesinemos|quemamos|incendiamos|ardemos|linchamos)
              \s+<ES_OBJ>
          | \bque\s+(?:alguien|algun\w*)\s+(?:<CLITIC>\s+)?<ES_SUBJ>\b
          | \bque\s+hay\s+que\s+<ES_INF>\b
          | (?:^|(?<=[.!?\n]))[^\S\n]*(?:matad|quemad|colgad|ahorcad|fusilad|matalos|matenlos
              |quemenlos|quemadlos|matadlos|fusiladlos|fusilenlos|ahorcadlos|linchadlos)\b""",
    ),
    R(
        "threat.should_die",
        (THREAT,),
        0.85,
        r"""\b(?:deberia|deberian|tendria\s+que|tendrian\s+que|merece|merecen|tiene\s+que
            |tienen\s+que|ojala)\s+(?:\w+\s+)?(?:morir|ser\s+(?:fusilad|ahorcad|ejecutad|quemad
            |asesinad|exterminad|colgad|linchad)[oa]s?)
          | \bmerecen?\s+(?:un\s+tiro|la\s+muerte|la\s+horca|que\s+<CLITIC>\s+(?:maten|fusilen
              |cuelguen|ahorquen|quemen))""",
        subject_before=True,
    ),
    R(
        "threat.death_wish",
        (THREAT,),
        0.8,
        r"""\bojala\s+(?:que\s+)?(?:alguien\s+)?(?:<CLITIC>\s+)?(?:mueras?|muera[n]?|<ES_SUBJ>)\b
          | \bque\s+se\s+mueran\b | \bque\s+te\s+mueras\b""",
    ),
    R(
        "threat.you_are_dead",
        (THREAT,),
        0.8,
        r"\b(?:estas\s+muert[oa]|eres\s+(?:hombre|mujer)\s+muert[oa]|estais\s+muertos)\b",
        lowered_by=ALL_CONTEXTS - {NEGATION},
    ),
    R(
        "threat.knows_where_you_live",
        (THREAT,),
        0.75,
        r"\b(?:se|sabemos)\s+donde\s+(?:vives|trabajas|duermes|estudias|viven|vive|aparcas)\b",
        lowered_by=ALL_CONTEXTS - {NEGATION},
    ),
    R(
        "threat.intimidation",
        (THREAT,),
        0.5,
        r"""\b(?:te\s+vas\s+a\s+(?:enterar|arrepentir)|(?:vas|vais)\s+a\s+pagar
            |(?:te|os)\s+(?:voy|vamos)\s+a\s+(?:encontrar|buscar|esperar)|cuidate\s+las\s+espaldas
            |(?:voy|vamos)\s+a\s+por\s+(?:ti|vosotros|ellos|ellas|el|ella))\b""",
    ),
    R(
        "threat.weapon",
        (THREAT,),
        0.5,
        r"\b(?:cuchillo|navaja|pistola|escopeta|rifle|machete|acido|balas?|fusil)\b",
        supporting=True,
    ),
    R(
        "identity.dehumanising",
        (IDENTITY_ATTACK,),
        0.9,
        r"\b<GROUP>\s+(?:no\s+)?(?:son|eran|seran|parecen|se\s+comportan\s+como)\s+<DEHUMANISING>",
    ),
    R(
        "identity.dehumanising_singular",
        (IDENTITY_ATTACK,),
        0.9,
        r"\b(?:cada|todo|un|el)\s+<group_singular>\s+(?:no\s+)?es\s+<DEHUMANISING>",
    ),
    R(
        "identity.collective",
        (IDENTITY_ATTACK,),
        0.85,
        r"\b<dehumanising_collective>\s+de\s+<GROUP>",
    ),
    R(
        "identity.denied_humanity",
        (IDENTITY_ATTACK,),
        0.9,
        r"\b<GROUP>\s+no\s+son\s+(?:ni\s+)?<humanity>\b",
        lowered_by=ALL_CONTEXTS - {NEGATION},
        needs="humanity",
    ),
    R(
        "identity.elimination",
        (IDENTITY_ATTACK, THREAT),
        0.9,
        r"""\b(?:hay\s+que|habria\s+que|deberiamos|tenemos\s+que|vamos\s+a)\s+
            (?:exterminar|matar|eliminar|gasear|quemar|fusilar|ahorcar|aniquilar|acabar\s+con
              |masacrar|linchar|erradicar)\s+(?:a\s+)?(?:todos\s+|todas\s+)?<GROUP>
          | \b<GROUP>\s+(?:deberian|merecen|tienen\s+que)\s+(?:morir|ser\s+(?:exterminad
              |eliminad|fusilad|ahorcad|quemad|gasead)[oa]s)""",
        needs="violence",
    ),
    # A negated sentence still uses the slur ("we don't hire …").
    R("severe.slur", (SEVERE_TOXICITY,), 0.9, r"\b<SLUR>\b", ALL_CONTEXTS - {NEGATION}),
    R(
        "insult.addressed",
        (INSULT,),
        0.75,
        r"""\b(?:eres|sois|es|son)\s+(?:un|una|unos|unas)\s+(?:[\w]+\s+)?<INSULT_WORD>\b
          | \b(?:panda|pandilla|banda|punado|atajo)\s+de\s+<INSULT_WORD>\b
          | \b(?:hij[oa]s?\s+de\s+puta)\b
          | \b(?:callate|cierra\s+la\s+boca)\s*,?\s+(?:<INSULT_WORD>|<SLUR>)\b""",
    ),
)

ES_CONTEXTS = {
    "idioms": r"""\b(?:matar\s+el\s+tiempo|me\s+muero\s+de\s+(?:risa|ganas|hambre|sueno|verguenza
        |envidia)|de\s+muerte|me\s+esta[ns]?\s+matando|matame\s+camion|lo\s+peto
        |(?:mi|tu|su)\s+(?:madre|padre|jefe|jefa)\s+me\s+va\s+a\s+matar)\b""",
    "negation": r"\b(?:no|nunca|jamas|nadie|ni|tampoco|ningun|ninguna|ninguno)\b",
    "mention": r"""\b(?:decir|dice|dicen|dijo|dijeron|decia|decian|diciendo|llamar|llaman|llamo
        |llamando|grito|gritaba|gritaron|escribio|escribieron|publico|afirma|afirman|afirmar
        |piensa|piensan|cree|creen|la\s+idea\s+de|describen|describe|describir)\s+(?:que\s+)?""",
    "reporting": r"""\b(?:segun|presuntamente|supuestamente|informo|informaron|testigos
        |(?:la\s+)?(?:policia|fiscalia|guardia\s+civil|autoridades|el\s+juez|la\s+jueza
          |el\s+tribunal|fuentes)\s+(?:informo|informaron|dijo|dijeron|afirmo|afirmaron|confirmo
          |confirmaron|declaro|declararon|aseguro|aseguraron)
        |detenido|detenida|condenado|condena\s+a|acusado|juzgado|el\s+informe|amenazo\s+con)\b""",
    "condemnation": r"""\b(?:es\s+(?:\w+\s+)?(?:repugnante|asqueroso|vergonzoso|inaceptable|racismo
        |racista|odio|propaganda|xenofobia|xenofobo|intolerable|mentira|falso)
        |(?:repugnante|asqueroso|vergonzoso|inaceptable)\s+(?:llamar|decir)
        |condena(?:mos|r|mos)?|basta\s+de|discursos?\s+de\s+odio|propaganda\s+nazi
        |no\s+es\s+opinion|nunca\s+mas)\b""",
    "sports_games": r"""(?:\b\d{1,3}\s*-\s*\d{1,3}\b|\b(?:partido|partidazo|liga|gol|goles|portero
        |delantero|defensa|arbitro|jugador|jugadores|equipo|temporada|nivel|jefe\s+final|partida
        |juego|videojuego|fortnite|counter|headshot|minecraft|champions|copa|penalti|aupa
        |aficion|jornada|derbi|clasico|mago|dragon|zombis?|orcos?|enemigos|mision|mazmorra|pvp
        |tanque|curandero)\b)""",
    "sports_ambiguous": (
        r"\b(?:matar|mata|matamos|disparar|masacrar|aplastar|reventar|destruir|fusilar"
        r"|eliminar|ejecutar)\w*"
    ),
    "unambiguous_violence": r"\b(?:apunal\w*|acuchill\w*|ahorc\w*|linch\w*|quem\w*|viol\w*)",
    "jocular": (
        r"\b(?:jaja\w*|jeje\w*|jiji\w*|xd|lol|es\s+broma|de\s+broma)\b"
        r"|[\U0001F602\U0001F923\U0001F606\U0001F605\U0001F61C\U0001F61D\U0001F643]"
    ),
}

# The prefilter: one regex made of the words the rules need, so an ordinary post costs one
# scan. Cues are literal prefixes of words or phrases (a space is any whitespace, "_" any one
# word); every match of every rule contains one, which a test checks on the evaluation set.
# The lexicons of dehumanising terms, slurs and insults join automatically, so a deployment's
# extra entries are never skipped.


def _combos(firsts: str, seconds: str) -> tuple[str, ...]:
    """Every phrase "<one of firsts> <one of seconds>", each a space-separated list."""
    return tuple(f"{a} {b}" for a in firsts.split() for b in seconds.split())


_EN_OBJECT_WORDS = "you u him her them em 'em the that this those these every all some y'all"
_EN_PLACES = "house home place door work office school"

EN_CUES = (
    *_words(
        """
        kill, murder, shoot, shot, stab, hang, hung, lynch, behead, decapitat, slaughter,
        butcher, massacr, torch, burn, bomb, firebomb, blow, strangl, gas, rape, raping,
        exterminat, wipe, wiping, gun, poison, drown, tortur, knife, knives, shank, firing,
        beat, hurt, harm, punch, chok, cut, slic, bury, hunt, string, break, smash, slit, bash,
        cave, crack, snap, bullet, execut, eradicat, eliminat, cull, thrown, dragged, steril,
        euthan, stoned, castrat, strung, die, death, rot, bleed, rope, noose, dead, gallows,
        guillotin, regret, numbered, ground, grave, coffin, ditch, wheelchair, swing, breed,
        reproduce, exist, address, kidnap, abduct, lined, murk, merk, mow, purg, liquidat,
        annihilat, cleans, in the hospital, in hospital, to the hospital, to hospital,
        into the hospital, into hospital, in the icu, in icu, to the icu, suffer, scream,
        disappear, rifle, pistol, glock,
        shotgun, machete, axe, acid, weapon, pitchfork, ammo, jumped, smoked, permanently,
        missile, shouldn, mustn, set fire, setting fire, open fire, end _, put down, put a, put
        round, put blade, put hole, against a wall, take up arms, lock and load, know where,
        never walk, never see, never speak, never talk, never wake, watch your back, watch ur
        back, better watch, should watch, find out where, sleep with, show up at, turn up, drop
        by, a visit, a little visit, body bag, in a box, have kids, have children, have babies,
        should not, should never, must not, ought not, for good, out back, out of the picture,
        out of picture, out of the equation, catch a, catch these, catch hands, lit up, i hope,
        rid us, rid me, rid the world, rid the country, rid this country, beg for, pay with,
        early grave, intensive care, coming for
        """
    ),
    *_combos("run running", _EN_OBJECT_WORDS),
    *_combos("make", "you u him her them em 'em"),
    *_combos("your ur her his their", _EN_PLACES),
)

ES_CUES = (
    *_words(
        """
        mata, mate, mato, asesin, dispar, apunal, acuchill, ahorc, ahorq, colg, cuelg, linch,
        quem, incendi, fusil, degoll, deguell, decapit, extermin, aniquil, viol, envenen, gase,
        raj, masacr, ejecut, tortur, errad, tiro, revent, revient, partir, parto, romp, abrir,
        muer, morir, horca, elimin, bala, balazo, disparo, navajazo, mete, meta, pegue, fuego,
        esperar, ardemos, atropell, enterar, arrepent, cuidate, a por, acabar con, se donde,
        sabemos donde, vas a pagar, vais a pagar
        """
    ),
    *_combos("te os", "voy vamos"),
)

LANGUAGES: dict[str, LanguageRules] = {
    "en": LanguageRules(
        lexicons=EN_LEXICONS,
        fragments=EN_FRAGMENTS,
        rules=EN_RULES,
        cues=EN_CUES,
        **EN_CONTEXTS,
    ),
    "es": LanguageRules(
        lexicons=ES_LEXICONS,
        fragments=ES_FRAGMENTS,
        rules=ES_RULES,
        cues=ES_CUES,
        **ES_CONTEXTS,
    ),
}


# --- compiling -------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"<([A-Za-z_][A-Za-z0-9_]*)>")
# No IGNORECASE: every regex here runs on folded text, which is lowercase, and matching
# case-blind made the scorer about 40% slower. _compile refuses a pattern with an uppercase
# letter, which could never match.
_FLAGS = re.VERBOSE
_UPPERCASE_LITERAL = re.compile(
    r"\\U[0-9A-Fa-f]{8}|\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2}|\\N\{[^}]*\}|\\.|\(\?P[<=]|([A-Z])"
)


def _compile(pattern: str) -> re.Pattern:
    for found in _UPPERCASE_LITERAL.finditer(pattern):
        if found.group(1):
            raise ValueError(
                f"uppercase {found.group(1)!r} in a scorer pattern can never match folded text:"
                f" {pattern[max(found.start() - 30, 0) : found.end() + 30]!r}"
            )
    return re.compile(pattern, _FLAGS)


def _lexicon_alternation(entries: Iterable[str]) -> str:
    """The entries as one alternation, built as a trie so that matching tries a few branches
    per word instead of every entry. A space in an entry is any whitespace; "s?" at the end
    is an optional letter; accents are stripped because the folded text has none."""
    words = set()
    for entry in entries:
        entry = strip_accents(entry.strip().lower())
        if entry.endswith("?"):
            words.update({entry[:-2], entry[:-1]})
        elif entry:
            words.add(entry)
    return _trie_regex(words, prefix=False)


def _expand(pattern: str, parts: Mapping[str, str], depth: int = 0) -> str:
    if depth > 10:
        raise ValueError(f"placeholders nest too deep in {pattern[:60]!r}")

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name not in parts:
            raise ValueError(f"unknown placeholder <{name}>")
        return _expand(parts[name], parts, depth + 1)

    return _PLACEHOLDER.sub(replace, pattern)


@dataclass(frozen=True)
class CompiledRule:
    name: str
    attributes: tuple[str, ...]
    weight: float
    regex: re.Pattern
    lowered_by: frozenset[str]
    supporting: bool
    subject_before: bool
    needs: str
    # Further cue families that must all be present: a rule about a protected group also
    # needs a group word, which keeps its costly pattern off the many posts with a
    # violence cue ("hospital") but no group.
    also_needs: tuple[str, ...] = ()


_GROUP_REFERENCE = re.compile(r"<(?:GROUP|GROUP_NOUN|group_[a-z_]+)>")


_HUMANITY_NEGATION = (
    r"(?:{b}not|n't|{b}never\s+be|{b}no\s+longer|{b}no\s+son)\s+(?:\w+\s+)?(?:ni\s+)?"
)

# Cue families: "violence" is the language's cue list; the others are lexicons.
_DEFAULT_NEEDS = {"threat": "violence", "identity": "dehumanising", "severe": "slurs"}
_DEFAULT_NEEDS["insult"] = "insults"


@dataclass
class CompiledLanguage:
    rules: list[CompiledRule]
    # A post none of these finds cannot match any rule (two regexes: together in one
    # alternation they scanned four times slower).
    prefilters: tuple[re.Pattern, ...]
    gates: dict[str, re.Pattern]
    idioms: re.Pattern
    negation: re.Pattern
    negation_before: re.Pattern
    mention: re.Pattern
    reporting: re.Pattern
    condemnation: re.Pattern
    sports_games: re.Pattern
    sports_ambiguous: re.Pattern
    unambiguous_violence: re.Pattern
    jocular: re.Pattern


def _cue_regex(cues: Iterable[str]) -> str:
    # A prefilter needs only a prefix: "hordes?" is covered by "horde".
    prefixes = {_without_optional_letter(strip_accents(c.strip().lower())) for c in cues}
    prefixes.discard("")
    return _trie_regex(prefixes, prefix=True)


def _without_optional_letter(cue: str) -> str:
    return cue[:-2] if cue.endswith("?") else cue


def _trie_regex(words: Iterable[str], *, prefix: bool) -> str:
    """An alternation of words as a trie: "kill|killer|kidnap" → "ki(?:ll(?:er)?|dnap)". With
    prefix=True a word also matches anything it begins, so longer words under it are dropped.
    In a word, a space is any whitespace and, for prefixes, "_" is any one word."""
    trie: dict = {}
    for word in words:
        tokens = []
        for i, part in enumerate(word.split()):
            tokens += ([" "] if i else []) + list(part)
        node = trie
        for token in tokens:
            if prefix and node.get("") is True:
                break  # a shorter prefix already covers this word
            node = node.setdefault(token, {})
        else:
            if prefix:
                node.clear()
            node[""] = True

    def emit(node: dict) -> str:
        branches = []
        for token, child in sorted((t, c) for t, c in node.items() if t != ""):
            if token == " ":
                head = r"\s+"
            elif token == "_" and prefix:
                head = r"\w+"
            else:
                head = re.escape(token)
            branches.append(head + emit(child))
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if node.get(""):
            # A word ends here and longer ones go on: the longer are tried first.
            return body if prefix else f"(?:{body})?"
        return body

    pattern = emit(trie)
    return f"(?:{pattern})" if pattern else "(?!)"


def _compile_language(code: str, language: LanguageRules, extra: Mapping[str, Iterable[str]]):
    lexicons = {name: list(entries) for name, entries in language.lexicons.items()}
    for name, entries in extra.items():
        lexicons.setdefault(name, []).extend(entries)
    parts = dict(language.fragments)
    parts.update({name: _lexicon_alternation(entries) for name, entries in lexicons.items()})
    rules = [
        CompiledRule(
            name=rule.name,
            attributes=rule.attributes,
            weight=rule.weight,
            regex=_compile(_expand(rule.pattern, parts)),
            lowered_by=rule.lowered_by,
            supporting=rule.supporting,
            subject_before=rule.subject_before,
            needs=rule.needs or _DEFAULT_NEEDS[rule.name.split(".")[0]],
            also_needs=("group",) if _GROUP_REFERENCE.search(rule.pattern) else (),
        )
        for rule in language.rules
    ]
    # Every lexicon that can start a non-threat match joins the prefilter, so a deployment's
    # extra slurs or terms are never skipped by it.
    dehumanising = [
        entry
        for name, entries in lexicons.items()
        if name.startswith("dehumanising")
        for entry in entries
    ]
    slurs = list(lexicons.get("slurs", ()))
    cue_families = {
        "violence": list(language.cues),
        "dehumanising": dehumanising,
        "slurs": slurs,
        # Insults at a person may be slurs too ("shut up <slur>").
        "insults": [*lexicons.get("insults", ()), *slurs],
    }
    groups = [
        entry
        for name, entries in lexicons.items()
        if name.startswith("group_")
        for entry in entries
    ]
    families = {name: r"\b" + _cue_regex(cues) for name, cues in cue_families.items()}
    families["group"] = r"\b" + _cue_regex(groups) if groups else "(?!)"
    # "… aren't people": the words for people are too common to pass on their own.
    humanity = parts.get("humanity", "(?!)")
    families["humanity"] = _HUMANITY_NEGATION.format(b=r"\b") + humanity
    gates = {name: _compile(pattern) for name, pattern in families.items()}
    needed = {rule.needs for rule in rules}
    if needed - set(gates):
        raise ValueError(f"rules need unknown cue families: {sorted(needed - set(gates))}")
    # The prefilters are every needed family at once, the literal ones merged into one trie.
    # They may find more than the rules do, never less.
    merged = [cue for name in sorted(needed & set(cue_families)) for cue in cue_families[name]]
    prefilters = [r"\b" + _cue_regex(merged)]
    if "humanity" in needed:
        # Without its \b anchors the pattern starts with literals, which the regex engine
        # scans for: 20 times faster.
        prefilters.append(_HUMANITY_NEGATION.format(b="") + humanity)
    negation = _compile(language.negation)
    return CompiledLanguage(
        rules=rules,
        prefilters=tuple(_compile(pattern) for pattern in prefilters),
        gates=gates,
        idioms=_compile(_expand(language.idioms, parts)),
        negation=negation,
        # A negation among the last few words before a match, in the same clause.
        negation_before=_compile(r"(?:" + language.negation + r")(?:\s+[\w'-]+){0,2}\s*$"),
        mention=_compile(language.mention),
        reporting=_compile(language.reporting),
        condemnation=_compile(language.condemnation),
        sports_games=_compile(language.sports_games),
        sports_ambiguous=_compile(language.sports_ambiguous),
        unambiguous_violence=_compile(language.unambiguous_violence),
        jocular=_compile(language.jocular),
    )


# --- scoring ---------------------------------------------------------------------------------

# Quoted stretches: "…", and '…' where the quote marks stand apart from words, so the
# apostrophes in "they'll" or "hunters'" do not open one.
# Enough matches per rule to explain a score; hostile text repeating a phrase a thousand times
# costs no more than this.
MAX_MATCHES_PER_RULE = 20

_QUOTED = re.compile(r""""[^"\n]{1,400}"|(?<![\w'])'(?=\S)[^'\n]{1,400}?(?<=\S)'(?![\w'])""")
_CLAUSE_BREAK = re.compile(r"[,;:.!?()\n\"]")
_SENTENCE_BREAK = re.compile(r"[.!?\n]")
_FIRST_PERSON_BEFORE = re.compile(r"\b(?:i|we|i'm|im|we're)\s+(?:\w+\s+)?$")
_LONE_OBJECTS = {"this", "that", "it", "so", "these", "those", "esto", "eso"}


@dataclass(frozen=True)
class _Match:
    rule: CompiledRule
    start: int
    end: int
    weight: float
    contexts: tuple[tuple[str, int, int], ...]


class RuleScorer:
    """The default scorer: rules kept in this module. ``extra_lexicons`` adds entries to the
    lexicons by language, e.g. ``{"en": {"slurs": ["…"], "group_religion": ["…"]}}``."""

    version = RULES_VERSION
    languages: Mapping[str, LanguageRules] = LANGUAGES
    # Off only in tests, which check that the prefilter never changes a score.
    use_prefilter = True

    def __init__(self, extra_lexicons: Mapping[str, Mapping[str, Iterable[str]]] | None = None):
        extra_lexicons = extra_lexicons or {}
        self._compiled = {
            code: _compile_language(code, rules, extra_lexicons.get(code, {}))
            for code, rules in self.languages.items()
        }

    def score(self, text: str, language: str) -> ScoreResult:
        compiled = self._compiled.get(primary_language(language))
        if compiled is None:
            return empty_result(self.version, language_supported=False)
        text = (text or "")[:MAX_CHARS]
        folded = fold(text)
        if self.use_prefilter and not any(p.search(folded.text) for p in compiled.prefilters):
            return empty_result(self.version, language_supported=True)
        matches = self._matches(compiled, folded.text)
        return self._result(text, folded, matches)

    # Matching ---------------------------------------------------------------------------

    def _matches(self, lang: CompiledLanguage, text: str) -> list[_Match]:
        found_by_rule = []
        open_gates: dict[str, bool] = {}
        for rule in lang.rules:
            closed = False
            for family in (rule.needs, *rule.also_needs):
                if family not in open_gates:
                    open_gates[family] = lang.gates[family].search(text) is not None
                if not open_gates[family]:
                    closed = True
                    break
            if closed:
                continue
            found = list(islice(rule.regex.finditer(text), MAX_MATCHES_PER_RULE))
            if found:
                found_by_rule.append((rule, found))
        if not found_by_rule:
            return []
        # Context is only looked for once something matched.
        idioms = [(m.start(), m.end()) for m in lang.idioms.finditer(text)]
        quotes = [(m.start(), m.end()) for m in _QUOTED.finditer(text)]
        sentence_starts = [0] + [m.end() for m in _SENTENCE_BREAK.finditer(text)]
        whole_text: dict[str, tuple[int, int] | None] = {}

        def text_context(name: str, regex: re.Pattern) -> tuple[int, int] | None:
            if name not in whole_text:
                found = regex.search(text)
                whole_text[name] = (found.start(), found.end()) if found else None
            return whole_text[name]

        matches: list[_Match] = []
        for rule, found_list in found_by_rule:
            for found in found_list:
                start, end = _trim(text, found.start(), found.end())
                if start >= end or any(s < end and start < e for s, e in idioms):
                    continue
                contexts = []
                lowered = rule.lowered_by
                if NEGATION in lowered:
                    span = self._negation(lang, text, start, end)
                    if span:
                        contexts.append((NEGATION, *span))
                if QUOTATION in lowered:
                    quote = next(((s, e) for s, e in quotes if s <= start and end <= e), None)
                    if quote:
                        contexts.append((QUOTATION, *quote))
                if MENTION in lowered:
                    sentence_start = sentence_starts[bisect_right(sentence_starts, start) - 1]
                    span = self._mention(lang, text, sentence_start, start, rule)
                    if span:
                        contexts.append((MENTION, *span))
                for name, regex in ((REPORTING, lang.reporting), (CONDEMNATION, lang.condemnation)):
                    if name in lowered:
                        span = text_context(name, regex)
                        if span:
                            contexts.append((name, *span))
                if (
                    JOCULAR in lowered
                    and IDENTITY_ATTACK not in rule.attributes
                    and SEVERE_TOXICITY not in rule.attributes
                ):
                    span = text_context(JOCULAR, lang.jocular)
                    if span:
                        contexts.append((JOCULAR, *span))
                if SPORTS_GAMES in lowered and THREAT in rule.attributes:
                    span = self._sports(lang, text, start, end, text_context)
                    if span:
                        contexts.append((SPORTS_GAMES, *span))
                weight = rule.weight
                for name, _, _ in contexts:
                    weight *= CONTEXT_FACTORS[name]
                matches.append(_Match(rule, start, end, weight, tuple(contexts)))
        return matches

    @staticmethod
    def _negation(lang: CompiledLanguage, text: str, start: int, end: int):
        inside = lang.negation.search(text, start, end)
        if inside:
            return inside.start(), inside.end()
        window_start = max(0, start - 40)
        window = text[window_start:start]
        breaks = list(_CLAUSE_BREAK.finditer(window))
        if breaks:
            window_start += breaks[-1].end()
            window = text[window_start:start]
        before = lang.negation_before.search(window)
        if before:
            return window_start + before.start(), window_start + before.end()
        return None

    @staticmethod
    def _mention(
        lang: CompiledLanguage, text: str, sentence_start: int, start: int, rule: CompiledRule
    ):
        """Speech reported or discussed: a mention verb earlier in the same sentence, not in
        the speaker's own voice ("I think…"), with the matched clause as its complement."""
        for cue in lang.mention.finditer(text, sentence_start, start):
            if _FIRST_PERSON_BEFORE.search(text, sentence_start, cue.start()):
                continue
            between = [w for w in (t.strip("'\"") for t in text[cue.end() : start].split()) if w]
            if not rule.subject_before:
                # The match holds its own subject ("I'll stab him"): it must be the cue's
                # complement, "said that I'll…", not a clause further on ("if he posts one
                # more video I'm gonna…").
                if not between:
                    return cue.start(), cue.end()
                continue
            # "Anyone who says that deserves to be shot", "whoever wrote this deserves…": when
            # no subject stands between the cue and the verb, the cue is part of the threat's
            # subject and the threat is the speaker's own.
            if not between or (len(between) == 1 and between[0] in _LONE_OBJECTS):
                continue
            if len(between) <= 4:
                return cue.start(), cue.end()
        return None

    @staticmethod
    def _sports(lang: CompiledLanguage, text: str, start: int, end: int, text_context):
        """Sports and games talk lowers threats made with the verbs games borrow."""
        matched = text[start:end]
        if not lang.sports_ambiguous.search(matched):
            return None
        if lang.unambiguous_violence.search(matched):
            return None
        return text_context(SPORTS_GAMES, lang.sports_games)

    # Scoring ----------------------------------------------------------------------------

    def _result(self, text: str, folded: Folded, matches: list[_Match]) -> ScoreResult:
        scores = {}
        for name in ATTRIBUTES:
            mine = [m for m in matches if name in m.rule.attributes and not m.rule.supporting]
            if not mine:
                scores[name] = _ZERO
                continue
            # Unlowered matches add up (two intimidating sentences are worse than one), and a
            # supporting one (a weapon) adds to them; lowered matches count for their own
            # weight only, so three quoted threats in a news story do not add up.
            plain = [m for m in mine if not m.contexts]
            if plain:
                plain += [
                    m
                    for m in matches
                    if name in m.rule.attributes and m.rule.supporting and not m.contexts
                ]
            combined = 1.0
            for m in plain:
                combined *= 1.0 - m.weight
            score = max([1.0 - combined] + [m.weight for m in mine])
            mine = list(dict.fromkeys(mine + plain))
            spans = {}
            for m in mine:
                key = (m.start, m.end, m.rule.name)
                spans[key] = self._span(text, folded, m.start, m.end, m.rule.name)
                for context, start, end in m.contexts:
                    start, end = _trim(folded.text, start, end)
                    key = (start, end, f"context.{context}")
                    spans[key] = self._span(text, folded, start, end, f"context.{context}")
            ordered = tuple(sorted(spans.values(), key=lambda s: (s.start, s.end, s.rule)))
            scores[name] = AttributeScore(round(min(score, 1.0), 4), ordered)
        return ScoreResult(scores=scores, version=self.version, language_supported=True)

    @staticmethod
    def _span(text: str, folded: Folded, start: int, end: int, rule: str) -> Span:
        original_start, original_end = folded.original(start, end)
        return Span(original_start, original_end, text[original_start:original_end], rule)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Matches may begin or end on whitespace (a pattern anchored after a full stop)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
