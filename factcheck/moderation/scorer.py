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
RULES_VERSION = "rules-3"

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


# English verbs whose last consonant doubles before -ing: "stab", "stabbing".
_DOUBLING = frozenset(
    _words("stab, cut, slit, gut, pop, snap, rip, split, gun, run, set, drop, whip, jab, mug")
)


def _ing(verb: str) -> str:
    if verb in _DOUBLING:
        return verb + verb[-1] + "ing"
    if verb.endswith("e") and not verb.endswith(("ee", "oe", "ye")):
        return verb[:-1] + "ing"
    return verb + "ing"


def _verbs(text: str) -> tuple[str, ...]:
    """A lexicon of English verbs, each in its base form and its -ing form ("I'll stab…",
    "I'm stabbing…"): a phrasal verb inflects its first word ("gunning down"), a hyphenated
    one its last part ("curb-stomping")."""
    entries = []
    for entry in _words(text):
        head, _, rest = entry.partition(" ")
        before, hyphen, last = head.rpartition("-")
        entries += [entry, f"{before}{hyphen}{_ing(last)} {rest}".strip()]
    return tuple(entries)


def _singulars(plurals: Iterable[str], *, keep: Iterable[str] = ()) -> tuple[str, ...]:
    """The singular of each one-word English plural ("somalis" → "somali", "gypsies" →
    "gypsy"); words without a plural ending ("chinese", "roma") stand for both. ``keep``
    drops the plurals whose singular is a common word of its own ("natives")."""
    singulars = []
    for plural in plurals:
        if " " in plural or plural in keep:
            continue
        if plural.endswith("ies"):
            singulars.append(plural[:-3] + "y")
        elif plural.endswith("s") and not plural.endswith("ss"):
            singulars.append(plural[:-1])
        else:
            singulars.append(plural)
    return tuple(singulars)


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
    # Singular group nouns ("every refugee is…"); the singulars of the plural group nouns join
    # them below.
    "group_singular": _words(
        """
        migrant, immigrant, refugee, asylum seeker, illegal, foreigner, muslim, jew, christian,
        catholic, hindu, sikh, gay, lesbian, homosexual, trans person, transgender person,
        woman, arab, mexican, gypsy, dalit, disabled person, autistic person, african
        """
    ),
    # The adjectives that, before a dehumanising noun, make it about a group ("muslim
    # vermin"). Colours and most nationalities are left out: "black rats", "african apes" and
    # "chinese pigs" are animals.
    "group_modifiers": _words(
        """
        muslim, jewish, christian, catholic, hindu, sikh, gay, lesbian, bisexual, queer, trans,
        transgender, immigrant, migrant, refugee, dalit, gypsy
        """
    ),
    # Dehumanising terms. Plural nouns and adjectives may follow a few words after the verb
    # ("are invading like locusts"); singular and mass nouns need an article or an intensifier
    # right before them, so "the animal shelter" or "taking out the trash" do not count.
    # Families: vermin and insects, disease, animals, objects and breeding stock, filth.
    "dehumanising_plural": _words(
        """
        vermin, rats, rodents, cockroaches, roaches, parasites, leeches, bloodsuckers, lice,
        fleas, ticks, maggots, worms, locusts, insects, bugs, termites, germs, bacteria,
        viruses, diseases, tumours, tumors, animals, beasts, savages, barbarians, apes,
        monkeys, gorillas, chimps, baboons, pigs, swine, hogs, dogs, hyenas, jackals, cattle,
        livestock, mutants, orcs, subhumans, sub-humans, untermenschen, demons, devils, freaks,
        abominations, useless eaters, useless mouths, mongrels, breeders, breeding stock,
        breeding machines, baby machines, baby factories, incubators, property, objects,
        burdens, perverts, groomers, degenerates, invaders, invasive species
        """
    ),
    "dehumanising_adjectives": _words(
        """
        subhuman, sub-human, inhuman, less than human, not fully human, dirty, filthy, unclean,
        impure, diseased, verminous, infested, defective, feral, rabid, mutant, bestial
        """
    ),
    "dehumanising_singular": _words(
        """
        disease, virus, cancer, plague, pestilence, infestation, parasite, rat, cockroach,
        animal, beast, pig, abomination, pest, tumor, tumour, blight, scourge, contagion,
        infection, vermin, burden, drain, leech, germ, rodent, mutant, incubator, object,
        invasive species
        """
    ),
    "dehumanising_mass": _words(
        """
        scum, filth, garbage, trash, rubbish, waste, excrement, sewage, dead weight
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
    # Who a threat is made against, besides pronouns and groups: a role, a relation, a kind
    # of person. Plurals in -s and -es are implied.
    "persons": _words(
        """
        judge, senator, mayor, governor, president, minister, prime minister, mp, politician,
        councillor, councilor, councilman, councilwoman, council, congressman, congresswoman,
        lawmaker, official, officer, cop, copper, policeman, policewoman, police, sheriff,
        deputy, soldier, agent, reporter, journalist, editor, anchor, columnist, blogger,
        teacher, principal, professor, doctor, nurse, surgeon, priest, pastor, imam, rabbi,
        bishop, landlord, landlady, boss, manager, ceo, banker, lawyer, attorney, prosecutor,
        witness, juror, clerk, coworker, co-worker, colleague, neighbour, neighbor, ref,
        referee, umpire, coach, streamer, youtuber, influencer, snitch, traitor, pedo, paedo,
        pedophile, paedophile, nonce, bitch, bastard, idiot, moron, scumbag, guy, dude, man,
        men, woman, women, girl, boy, kid, child, children, family, families, wife, husband,
        girlfriend, boyfriend, ex, mother, father, mom, mum, dad, son, daughter, brother,
        sister, baby, babies, person, people, folks, protester, protestor, demonstrator,
        rioter, looter, voter, activist, liberal, conservative, leftist, democrat, republican,
        tory, commie, communist, fascist, nazi, terrorist, thug, gangster, dealer, junkie,
        prisoner, inmate, guard, member, owner, leader, candidate, billionaire, bureaucrat,
        driver, biker, rider, pedestrian, student, pupil, shopkeeper, cashier, customer, fan,
        supporter, worker, employee, tenant, passenger, patient, stranger, lady, ladies,
        gentleman, grandma, grandpa, teen, teenager, toddler, infidel, heretic, apostate,
        kafir, murderer, killer, criminal, crook, thief, thieves, robber, burglar, scab, king,
        queen, prince, princess, pope, cardinal, monk, nun, vicar, mullah, cleric, preacher,
        researcher, dean, lecturer, headteacher, headmaster, tutor, captain, general, sergeant,
        trooper, firefighter, paramedic, medic, midwife, carer, nanny, babysitter, host,
        presenter, vlogger, podcaster, hooligan, canvasser, solicitor, barrister, magistrate,
        inspector, detective, warden, veteran, roommate, flatmate, housemate, classmate,
        teammate, supervisor, executive, founder, nephew, niece, cousin, uncle, aunt,
        stepdad, stepmom, spouse, snowflake, karen, simp, incel, loser, coward, rat, pig,
        hostage, bully, cheater, slave
        """
    ),
    # Where a threat of arson, bombing or a shooting is aimed.
    "places": _words(
        """
        house, home, office, headquarters, hq, mosque, church, synagogue, temple, gurdwara,
        clinic, school, college, university, campus, shelter, station, courthouse, building,
        newsroom, studio, embassy, consulate, store, shop, car, truck, van, porch, apartment,
        flat, hotel, camp, centre, center, city hall, town hall, parliament, capitol, bar,
        club, restaurant, precinct, compound, business, place, garage, warehouse, factory,
        mall, pub, hostel, street, neighbourhood, neighborhood, estate, block, town, village
        """
    ),
    # Violent acts, each with what it is done to. A deployment may add verbs: their entries
    # join the prefilter's cues.
    # Done to a person or a group: "kill <them>".
    "violent_acts": _verbs(
        """
        kill, murder, execute, assassinate, slaughter, massacre, butcher, exterminate,
        eradicate, murk, merk, whack, gut, knife, shank, stab, shoot, strangle, choke,
        throttle, suffocate, drown, hang, lynch, behead, decapitate, torture, rape, kidnap,
        abduct, poison, gas, burn, torch, firebomb, bomb, stomp, curb-stomp, curbstomp,
        pistol-whip, batter, bludgeon, maim, cripple, mutilate, dismember, castrate, crucify,
        skin, hurt, harm, punch, jump, smoke, gun down, mow down, hunt down, string up, wipe
        out, blow up, shoot up, beat up, run over, run down, bury
        """
    )
    + _words("curb stomp, curb stomping, pistol whip, pistol whipping"),
    # Done to a building: "burn down <the clinic>".
    "violent_arson": _verbs(
        """
        burn, burn down, torch, firebomb, petrol-bomb, petrol bomb, bomb, blow up, shoot up,
        set fire to, storm, raze
        """
    ),
    # Done to the head or the face: "smash <your face> in", "crack skulls".
    "violent_body": _verbs(
        """
        break, snap, crack, smash, bash, cave, kick, stomp, rip, tear, cut, slit, slice, bust,
        split, blow, knock, punch, gouge, crush, shatter
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
# "every Somali is…", "this migrant is…". Not the plurals whose singular is a word of its own
# ("native", "pole", "alien"), nor the sexes: "that woman is a pig" is an insult, not a group.
EN_LEXICONS["group_singular"] += _singulars(
    (
        entry
        for name, entries in EN_LEXICONS.items()
        if name.startswith("group_") and name not in ("group_sex", "group_singular")
        for entry in entries
    ),
    keep=_words("whites, blacks, natives, poles, aliens, travellers, newcomers"),
)

EN_FRAGMENTS = {
    "DET": r"(?:the|that|this|those|these|their|his|her|your|ur|every|all|some|any|a|an)",
    "PRON": (
        r"(?:you|u|ya|him|her|them|'em|em|y'all|yall|you\s+all|everyone|everybody|anyone"
        r"|all\s+of\s+(?:you|them))\b"
    ),
    # Whoever or whatever intimidation is aimed at ("pay <him> a visit").
    "OBJ": r"(?:<PRON>|<DET>\s+(?:[\w'-]+\s+){0,2}?[\w'-]+)",
    # Who a violent act is done to: a pronoun, "<det> <up to two words> <person>" ("that pedo
    # teacher", "the senator's kids"), a bare plural ("cops"), a group. Not a thing: "kill the
    # weeds", "burn the branches", "beat the eggs" are not threats. Not a possessive: "the
    # senator's house" is a place. Never "me", "us", "it" or "my …": self-directed and venting
    # hyperbole ("someone shoot me", "I'll strangle my code reviewer") are not threats. Known
    # blind spot: real threats against "my wife" read as venting.
    # Without a determiner, a plural only ("kill cops"): "shoot hoops dad" is no threat. The
    # lookahead keeps one copy of the <targets> trie, which is large and in every violent act.
    "TARGET": r"""(?:(?:every|each|all|any|some|one|most)\s+(?:single\s+|last\s+)?(?:one\s+)?of\s+)?
        (?:<PRON>
        | (?:(?:<DET>|every\s+(?:last|single)|all\s+(?:the|those|these))\s+(?:[\w'-]+\s+){0,2}?
          | (?:[\w'-]+\s+)?(?=[\w'-]*(?:s|men|people|children|police|folks|chinese|roma)\b))
          <PERSON>(?!')
        )""",
    # <targets> is every person and group noun and slur, as one trie: see _compile_language.
    # And the suffixes that make people: "cyclist", "comedian" (not "playlist").
    "PERSON": r"""(?:(?:<targets>)(?:s|es)?
        |(?!(?:play|check|wish|short|black|hit|set|song)lists?\b)[a-z]{3,}ists?
        |[a-z]{3,}ians?)\b""",
    "PLACE": r"""(?:<DET>\s+(?:[\w'-]+\s+){0,2}?<places>(?:s|es)?
        |(?:[\w'-]+\s+)?<places>(?:s|es))\b""",
    # Whose body: "your", "the referee's".
    "POSS": r"(?:your|ur|ya|his|her|their|(?:<DET>\s+)?(?:[\w-]+\s+)?[\w-]+'s?)",
    # The head and face take any of the violent_body verbs; limbs only breaking, or cutting
    # off: "kick your legs", "snap your fingers" and "crack your neck" are exercises.
    "BODY": (
        r"(?:skulls?|faces?|jaws?|throats?|heads?|kneecaps?|teeth|ribs|spine|nose|brains?"
        r"|eyes|windpipe)"
    ),
    "LIMBS": r"(?:necks?|legs?|arms?|knees|bones|spine)",
    "SEVERED": r"(?:heads?|hands?|fingers|legs?|arms?|balls|tongue|ears?|dick)",
    # Violent acts in the base form or -ing, each with who or what it is done to.
    "VIOLENCE": r"""(?:
        <violent_acts>\s+<TARGET>
      | (?:cut|cutting|slice|slicing)\s+<TARGET>
          (?!\s+(?:off|out|loose|short|some|a\s+(?:check|deal|break)|in|down|back)\b)
      | (?:pop|popping)\s+<TARGET>(?!\s+(?:in|into|over|round|on|off|out|to|back|down|up|by
          |along|a|an)\b)
      | (?:end|ending)\s+<PRON>
      | <violent_arson>\s+<PLACE>
      | <violent_body>\s+<POSS>\s+(?:[\w'-]+\s+)?<BODY>\b
      | (?:break|breaking|smash|smashing|shatter|shattering|crush|crushing)\s+
          <POSS>\s+(?:[\w'-]+\s+)?(?:<LIMBS>|fingers|hands)\b
      | (?:snap|snapping)\s+<POSS>\s+(?:[\w'-]+\s+)?<LIMBS>\b
      | (?:cut|cutting|rip|ripping|tear|tearing|chop|chopping|hack|hacking)\s+
          (?:off\s+<POSS>\s+<SEVERED>|<POSS>\s+<SEVERED>\s+off)\b
      | (?:break|breaking|crack|cracking|bust|busting|smash|smashing|bash|bashing|split
          |splitting|snap|snapping|cave\s+in|caving\s+in)\s+(?:some\s+|a\s+few\s+|more\s+)?
          (?:skulls|heads|legs|kneecaps|bones|necks|jaws|faces|ribs)\b
      | break(?:ing)?\s+every\s+bone\s+in\s+<POSS>\s+bod(?:y|ies)
      | (?:sink|sinking|torpedo|torpedoing|ram|ramming)\s+(?:the|their|those|these|every)\s+
          (?:boats?|dinghies|dinghy|rafts?)\b
      | (?:drive|driving|run|running|ram|ramming|plow|plowing|plough|ploughing)\s+(?:my|a|the
          |our|this)\s+(?:truck|car|van|suv|lorry)\s+(?:into|through)\s+(?:<TARGET>|(?:the|that
          |this|those|a|their)\s+(?:[\w'-]+\s+)?(?:protest|crowd|march|rally|parade|demo
          |demonstration|vigil|queue))
      | (?:beat|beating|whoop|whooping|whup|whupping)\s+(?:your|ur|his|her|their|ya)\s+
          (?:[\w'-]+\s+)?ass\b
      | make\s+<PRON>\s+(?:bleed|suffer|scream|disappear
          |beg\s+for\s+(?:your|his|her|their)\s+li(?:fe|ves))
      | (?:beat|beating|kick|kicking|knock|knocking|stomp|stomping|put|putting|throw|throwing
          |push|pushing|toss|tossing|chuck|chucking|drop|dropping|send|sending|set|setting
          |douse|dousing|soak|soaking|drench|drenching|fill|filling|line|lining|rip|ripping
          |tear|tearing|leave|leaving)\s+<TARGET>\s+<HARM>
      | (?:set|setting|douse|dousing|soak|soaking|drench|drenching)\s+<PLACE>\s+<HARM>
      | (?:put|putting|send|sending)\s+<TARGET>\s+(?:in|into|to)\s+(?:the\s+|an?\s+)?(?:hospital
          |icu|intensive\s+care|wheelchair|ambulance)
      | (?:beat|beating|string|stringing|blow|blowing|light|lighting)\s+<TARGET>\s+up
      | (?:gun|gunning|mow|mowing|hunt|hunting|run|running)\s+<TARGET>\s+down
      | (?:run|running)\s+<TARGET>\s+(?:over|off\s+the\s+road)
      | (?:wipe|wiping|stomp|stomping)\s+<TARGET>\s+out
      | take\s+<TARGET>\s+out\s+(?:permanently|for\s+good|back|of\s+(?:the\s+)?(?:picture
          |equation))
      | (?:have|having|get|getting)\s+<TARGET>\s+(?:<PARTICIPLE>|taken\s+out)\b
      | (?:(?:beat|beating|kick|kicking|knock|knocking)\s+the\s+(?:shit|crap|hell|life
            |living\s+daylights|snot|stuffing)\s+out\s+of
          | put(?:ting)?\s+(?:a|one|two|some|the|my|our)?\s*(?:bullets?|rounds?|slugs?|caps?|knife
            |knives|blades?|holes?|fist|foot|boot|knee|hammer|brick|bat)\s+(?:in|into|through
            |between|down)
          | (?:throw|throwing|splash|splashing)\s+acid\s+(?:in|on|at|over)
          | rid\s+(?:us|me|the\s+world|the\s+country|this\s+country)\s+of
        )\s+(?:<POSS>\s+[\w'-]+|<TARGET>)
    )""",
    # How someone is left: "beat <him> to death", "throw <them> off the bridge".
    "HARM": r"""(?:to\s+death|to\s+a\s+pulp|bloody|senseless|half\s+to\s+death|black\s+and\s+blue
        |within\s+an\s+inch|limb\s+from\s+limb|for\s+dead|bleeding
        |with\s+(?:[\w'-]+\s+){0,2}?(?:bats?|sticks?|bricks?|pipes?|hammers?|clubs?|crowbars?
          |chains?|belts?|lead|bullets)
        |on\s+fire|alight|ablaze|full\s+of\s+(?:lead|holes|bullets)
        |(?:in|with)\s+(?:petrol|gasoline|gas|fuel|kerosene|acid|lighter\s+fluid)
        |(?:off|from|into|in|out\s+of|over)\s+(?:a|the|that|this)\s+(?:[\w'-]+\s+)?(?:bridge
          |roof|rooftop|building|cliff|window|river|sea|lake|canal|ocean|fire|balcony|tower
          |overpass|train|helicopter)
        |(?:in|into)\s+(?:the\s+|a\s+|an\s+)?(?:ground|morgue|grave|coffin|body\s+bag|ditch
          |early\s+grave)
        |six\s+feet\s+under|(?:up\s+)?against\s+(?:a|the)\s+wall
        |through\s+(?:a|the)\s+(?:window|wall|windscreen|windshield|table|floor|door)
        |down\s+like\s+(?:a\s+)?(?:rabid\s+)?(?:dogs?|animals?)
        |to\s+(?:the\s+|an\s+)?(?:morgue|grave|early\s+grave)
        |home\s+in\s+(?:an?\s+)?(?:ambulance|body\s+bag|coffin))\b""",
    "PARTICIPLE": r"""(?:killed|shot|shot\s+dead|hanged|hung|executed|lynched|beheaded|gassed
        |exterminated|wiped\s+out|put\s+down|burn(?:ed|t)(?:\s+alive)?|stabbed|beaten|lined\s+up
        |wiped\s+off\s+(?:the\s+face\s+of\s+the\s+earth|the\s+map)|kidnapped|abducted|purged
        |liquidated|annihilated|ethnically\s+cleansed|run\s+over|mowed\s+down
        |murdered|eradicated|eliminated|culled|strung\s+up|tortured|raped
        |slaughtered|massacred|dragged|shot\s+on\s+sight|put\s+(?:up\s+)?against\s+a\s+wall
        |sterili[sz]ed|euthani[sz]ed|drowned|stoned|decapitated|castrated|gunned\s+down
        |stomped(?:\s+out)?|curb-?\s?stomped|knifed|shanked|strangled|hunted\s+down
        |set\s+on\s+fire|set\s+alight|torched|firebombed|blown\s+up|maimed|crippled|mutilated
        |hit\s+by\s+a\s+(?:bus|car|truck|train|lorry)
        |dismembered|crucified|skinned\s+alive|murked|merked|whacked|jumped|roughed\s+up
        |beaten\s+(?:up|to\s+death|bloody|senseless)
        |thrown\s+(?:off|from)\s+(?:an?\s+|the\s+)?(?:[\w'-]+\s+)?(?:roofs?|rooftops?|bridges?
          |buildings?|cliffs?|balcon(?:y|ies)|towers?|windows?|helicopters?|planes?)
        |thrown\s+in(?:to)?\s+(?:the\s+)?(?:sea|river|fire|ocean|lake|canal))""",
    # What is done to a body part: "(gets) his head kicked in", "(needs) her face smashed".
    "BODY_PARTICIPLE": r"""(?:(?:your|ur|his|her|their)\s+(?:[\w'-]+\s+)?(?:<BODY>|<LIMBS>)\s+
        (?:broken|smashed|kicked|bashed|caved|cracked|crushed|split|snapped|ripped|torn|slit|cut
          |blown|knocked|stomped|beaten|punched|busted|shattered)
        (?:\s+(?:in|off|out|open))?)\b""",
    # Words between an intent or a call and the violence: "I'm going to find out where you
    # live and put a bullet…". Never across punctuation.
    "GAP": r"(?:[\w'-]+\s+){0,10}?",
    "SHORT_GAP": r"(?:[\w'-]+\s+){0,2}?",
    # The speaker's own intent.
    "INTENT": r"""(?:
        (?:i|we)\s*(?:'ll|will|shall|'m\s+going\s+to|am\s+going\s+to|'re\s+going\s+to
          |are\s+going\s+to|'m\s+gonna|am\s+gonna|'re\s+gonna|are\s+gonna|gonna|wanna|want\s+to
          |plan\s+to|intend\s+to|promise\s+to|'m\s+about\s+to|'d\s+love\s+to|would\s+love\s+to
          |could|'d|would)
        | im\s+(?:going\s+to|gonna) | ima | i'ma | imma | ill | watch\s+me | let\s+me
      )""",
    # A call on others to act.
    "CALL": r"""(?:let'?s|lets|let\s+us|i\s+say\s+we
        | we\s+(?:should|must|need\s+to|have\s+to|gotta|ought\s+to|got\s+to)
        | (?:someone|somebody|anyone|anybody|everyone|everybody|people|y'all|you\s+all|they)
            \s+(?:should|must|needs?\s+to|has\s+to|have\s+to|ought\s+to|go|gotta|better|please)
        | time\s+to | it's\s+time\s+to | time\s+we | who's\s+(?:gonna|going\s+to|ready\s+to)
        | (?:hope|wish|pray)\s+(?:that\s+)?(?:someone|somebody|some1|people)\s+(?:would|will|'d|'ll)
      )""",
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
      | (?:(?:just|nothing\s+but|nothing\s+more\s+than|no\s+more\s+than|merely|pure|utter|total
          |absolute|human|worthless|filthy|dirty|such)\s+)+(?:<dehumanising_mass>
          |<dehumanising_singular>)
      | <dehumanising_mass>
    )\b""",
    # Nouns that turn a group adjective into dehumanisation: "muslim vermin", "gay freaks".
    # Not "animals" or "dogs": "gay animals" and "refugee dogs" are animals.
    "VERMIN": r"""(?:vermin|rats|rodents|cockroaches|roaches|parasites|leeches|lice|maggots|scum
        |filth|subhumans|savages|pigs|swine|apes|monkeys|degenerates|freaks|mongrels)""",
    "VERMIN_ONE": r"""(?:rat|rodent|cockroach|roach|parasite|leech|maggot|subhuman|savage|pig|swine
        |ape|monkey|degenerate|freak|mongrel)""",
    "SLUR": r"(?:<slurs>)s?",
    "INSULT_WORD": r"(?:<insults>)s?",
}

EN_RULES = (
    # THREAT. Most rules are a frame (the speaker's intent, a call on others, a condition, an
    # order) followed, a few words on, by a <VIOLENCE> act: a family of violent verbs with what
    # it is done to (a <TARGET> person or group, a <PLACE>, a body part). Then wishes, what is
    # to become of the target, and intimidation.
    R(
        "threat.intent",
        (THREAT,),
        0.9,
        r"""(?:\b<INTENT>\s+<GAP>
          | \b(?:i|we)\s*(?:'m|\s+am|'re|\s+are)\s+(?:just\s+|about\s+)?
          | (?:^|(?<=[.!?,;\n])|\band\b|\bthen\b)[^\S\n]*(?:i|we)\s+(?:just\s+)?
          | (?:^|(?<=[.!?,\n]))[^\S\n]*(?:gonna|going\s+to)\s+<GAP>
          )<VIOLENCE>""",
    ),
    R(
        "threat.call_to_action",
        (THREAT,),
        0.9,
        r"""\b<CALL>\s+(?:go\s+|start\s+|just\s+|finally\s+|all\s+|please\s+|and\s+)*<GAP>
            <VIOLENCE>
          | \btime\s+we\s+(?:finally\s+|all\s+)?<PARTICIPLE>\s+<TARGET>""",
    ),
    R(
        "threat.conditional",
        (THREAT,),
        0.85,
        r"""\b(?:if|when|once|next\s+time|the\s+moment|as\s+soon\s+as|soon\s+as)\s+
            [^.!?\n]{1,100}?\b(?:i|we|then\s+we|then\s+i)\s+(?:just\s+|all\s+)?<VIOLENCE>""",
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
        # An order at the start of a sentence or clause: "Kill the governor.", "…, gas them
        # all", "Round them up and put them against the wall".
        "threat.imperative",
        (THREAT,),
        0.85,
        r"""(?:^|(?<=[.!?,;:\n]))[^\S\n]*(?:somebody\s+|someone\s+|go\s+|now\s+|just\s+
            |(?:[\w'-]+\s+){1,4}?and\s+(?:then\s+)?)?<VIOLENCE>""",
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
        r"""\b(?:is|are|'s|'re|ur|u\s*r|youre)\s+(?:going\s+to\s+get|gonna\s+get|getting)\s+
            (?:\w+\s+)?(?:<PARTICIPLE>|stabbed|shot|killed|hurt|beaten|murdered|jumped|smoked
              |lit\s+up|merked|<BODY_PARTICIPLE>|a\s+bullet(?!\s+(?:journal|point|train|proof))
              |bullets|the\s+rope|the\s+noose
              |a\s+beating|a\s+knife|(?:his|her|their|your|ur)\s+throat\s+cut)\b
          | \b(?:is|are|'s|'re)\s+(?:going\s+to|gonna)\s+catch\s+(?:a\s+bullet|these\s+hands
            |a\s+fade|hands|a\s+stray)""",
        subject_before=True,
    ),
    R(
        "threat.will_hang",
        (THREAT,),
        0.75,
        r"""\b(?:will|'ll|shall|gonna|going\s+to|should|must|deserve\s+to|deserves\s+to)\s+
            (?:all\s+)?(?:hang|swing|burn\s+alive|pay\s+in\s+blood
              |pay\s+with\s+(?:their|his|her)\s+(?:li(?:fe|ves)|blood))
            (?:\s+for\b|\s*[,.!]|\s*$)
          | \b(?:should|must)\s+(?:all\s+)?die\b(?:\s*[,.!]|\s*$)""",
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
        r"""\b(?:i'm|im|i\s+am|we're|we\s+are|i'll|we'll|i\s+will|we\s+will|gonna)\s+(?:
            (?:bringing|bring|taking|take|carrying|packing)\s+(?:a|my|the|our|some)\s+(?:knife
              |knives|gun|guns|rifle|rifles|pistol|machete|axe|bomb|acid|bats|baseball\s+bats
              |crowbars)\s+(?:to|into)\b
            | (?:be\s+)?(?:coming|showing\s+up|turning\s+up|pulling\s+up)\s+(?:[\w'-]+\s+){0,4}?
              with\s+(?:a\s+|my\s+|our\s+|some\s+)?(?:knife|knives|guns?|rifles?|pistols?
              |machetes?|axes?|baseball\s+bats|bats|crowbars|pipes)\b
            | (?:sharpening|loading|oiling|cleaning|packing)\s+(?:my|our|the|a)\s+(?:knife|knives
              |guns?|rifles?|pistol|machete|axe)\s+(?:for|before)\s+(?:[\w'-]+\s+){0,2}?(?:meeting
              |protest|rally|march|school|class|office|work|hr|boss|ex|neighbou?rs?|family|church
              |mosque|synagogue|council)\b)
          | (?:^|(?<=[.!?,\n])|\b(?:tomorrow|tonight|next\s+\w+))[^\S\n]*,?\s*we\s+bring\s+
            (?:knives|guns|rifles|machetes|bats|baseball\s+bats|crowbars|pipes)\b
          | \b(?:bring|bringing|take|taking|carry|carrying|pack|packing)\s+(?:a|my|the|our|some
            |your)\s+(?:knife|knives|guns?|rifles?|pistol|machete|axe|bats|baseball\s+bats?)\s+
            (?:to|into)
            \s+(?:[\w'-]+\s+){0,2}?(?:meeting|protest|rally|march|school|office|church|mosque
              |synagogue|temple|council|hearing|court|clinic|parade|vigil)\b""",
    ),
    R(
        "threat.deserves_death",
        (THREAT,),
        0.85,
        r"""\b(?:deserves?|needs?|earned)\s+(?:to\s+(?:die|hang|burn|rot|bleed)|a\s+bullet
            |a\s+slow\s+death|death|the\s+rope|the\s+noose|a\s+rope|to\s+be\s+put\s+down
            |(?:to\s+have\s+|to\s+get\s+)?<BODY_PARTICIPLE>)""",
        subject_before=True,
    ),
    R(
        # Wishing someone harm: "I hope someone stabs you", "hope he gets his head kicked in",
        # "I want to see that judge hanging", "I want him dead".
        "threat.death_wish",
        (THREAT,),
        0.8,
        r"""\b(?:i\s+)?(?:hope|pray)\s+(?:that\s+)?(?:
            (?:someone|somebody|they|he|she|you)\s+(?:\w+\s+)?(?:(?:shoots?|kills?|stabs?
                |murders?|hangs?|burns?|rapes?|lynch(?:es)?|strangles?)\s+<TARGET>
              | puts?\s+(?:a\s+)?(?:bullet|knife|blade)\s+(?:in|into|through)\s+
                (?:<POSS>\s+\w+|<TARGET>)
              | runs?\s+<TARGET>\s+over)
            | (?:you|he|she|they|<TARGET>|(?:your|his|her|their)\s+[\w'-]+(?:\s+[\w'-]+)?)
              \s+(?:all\s+)?(?:dies?|(?:gets?|is|are)\s+(?:<PARTICIPLE>|<BODY_PARTICIPLE>
                |beaten\s+to\s+death|burned\s+alive))\b
            | (?:[\w'-]+\s+){0,4}?(?:bomb|bullet|missile|car|truck|bus|train|plane)
              \s+(?:lands|hits|kills|runs\s+over|falls\s+on|crashes\s+into)\s+(?:on\s+)?(?:you
              |your|him|her|them|their)\b)
          | (?:\b(?:i|we)\s*(?:want|wanna|need|'d\s+love|would\s+love|'d\s+pay|would\s+pay
              |can't\s+wait|cant\s+wait|cannot\s+wait|dream\s+of)
            | (?:^|(?<=[.!?,\n]))[^\S\n]*(?:can't|cant|cannot)\s+wait)
            \s+(?:(?:to\s+)?(?:see|seeing|watch|watching)\s+<TARGET>\s+(?:(?:hang|hanging|swing
                |swinging)(?!\s+(?:out|around|about|by|with|on|together)\b)|burn|burning|die
                |dying|bleed|bleeding|dead|(?:get|getting)\s+<PARTICIPLE>|<PARTICIPLE>
                |in\s+a\s+body\s+bag|on\s+fire)
              | <TARGET>\s+dead)\b""",
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
            |bullet\s+(?:in|through|between)\s+<POSS>\s+(?:head|brain|skull|face|chest|eyes)
            |(?:i|we)(?:'ve|\s+have)?\s+(?:planted|placed|hidden|hid|left)\s+(?:a|an|the)\s+(?:bomb
              |device|ied|explosive)
            |there(?:'s|\s+is|\s+will\s+be)\s+a\s+bomb\s+(?:in|at|under|on)\s+(?:the|your|this
              |that|our)
            |string\s+(?:them|him|her|'em|you|(?:the|those|these|every|all)\s+\w+)\s+up
            |swing\s+from\s+(?:a|the)\s+(?:rope|tree|lamp\s*post|lamppost|gallows|noose|bridge))""",
    ),
    R(
        # The lynch mob's call: "somebody get a rope", "grab a rope and a tree".
        "threat.rope",
        (THREAT,),
        0.75,
        r"""\b(?:(?:someone|somebody|some1|y'all|let's|lets|go|just)\s+)?(?:get|grab|bring|fetch
            |find)\s+(?:me\s+)?(?:a|the|some)\s+(?:nooses?\b
            |ropes?\s+and\s+(?:a|the)\s+(?:tree|lamppost|lamp\s+post)
            |ropes?\b(?=[^.!?\n]{0,40}?\b(?:him|her|them|<PERSON>)))""",
    ),
    R(
        "threat.death_to",
        (THREAT,),
        0.85,
        r"""\bdeath\s+to\s+(?:all\s+|the\s+|every\s+|those\s+|these\s+)*(?:[\w'-]+\s+)?<PERSON>
          | \bdie,?\s+(?:you\s+)?(?:[\w'-]+\s+){0,2}?[\w'-]+,?\s+die\b""",
    ),
    R(
        "threat.knows_where_you_live",
        (THREAT,),
        0.75,
        r"""\b(?:i|we)\s+know\s+where\s+(?:you|u|he|she|they|your\s+[\w']+|ur\s+[\w']+)
            \s+(?:[\w']+\s+)?(?:live|lives|sleep|sleeps|work|works|park|go|goes|stay|are)\b
          | \b(?:i|we)\s+(?:know|have|got|found)\s+(?:your|ur|his|her)\s+(?:home\s+)?address\b
          | \b(?:i|we)\s+know\s+(?:which|what)\s+(?:car|house|school|gym|door|flat|apartment)
            \s+(?:is|'s)\s+(?:yours|his|hers|theirs)\b
          | \b(?:shame|pity)\s+if\s+(?:something|anything|it|(?:your|ur|his|her|their|the|that
            |this)\s+[\w'-]+)\s+(?:were\s+to\s+|was\s+to\s+)?(?:happened?|caught\s+fire
            |burn(?:ed|t)\s+down|blew\s+up|got\s+(?:hurt|torched|burned)|had\s+an\s+accident)""",
        lowered_by=ALL_CONTEXTS - {NEGATION},
    ),
    R(
        # What will become of the target: "you'll never walk again", "…should end up at the
        # bottom of a river", "…is going home in an ambulance".
        "threat.never_walk_again",
        (THREAT,),
        0.75,
        r"""\b(?:you|he|she|they|u)(?:'ll|\s+will)?\s+never\s+(?:walk|see|speak|talk|wake\s+up)
            \s+again
          | \b(?:you|he|she|they|u)(?:'ll|\s+will)\s+(?:be\s+|end\s+up\s+)(?:sleeping\s+|lying\s+
            |buried\s+)?in\s+a\s+(?:ditch|grave|coffin|body\s+bag|box|wheelchair)
          | \b(?:should|must|needs?\s+to|deserves?\s+to|ought\s+to|(?:is|are|'s|'re)\s+(?:going\s+to
            |gonna)|will|'ll)\s+(?:all\s+)?(?:end\s+up|wind\s+up|be\s+found|wash\s+up|turn\s+up)
            \s+(?:dead|floating|face\s*down|in\s+(?:a|the)\s+(?:ditch|body\s+bag|coffin|grave
              |river|morgue|gutter|dumpster|trunk)|at\s+the\s+bottom\s+of\s+(?:a|the)\s+(?:river
              |lake|sea|ocean|canal|well)|six\s+feet\s+under)
          | \b(?:going|go|leaving|leave|sent|carried\s+out|coming\s+out)\s+(?:home\s+)?in\s+
            (?:an?\s+)?(?:ambulance|body\s+bag|coffin|hearse)\b
          | \b(?:you|u|he|she|they)(?:'ll|\s+will)\s+be\s+(?:eating|drinking|breathing)\s+through
            \s+a\s+(?:straw|tube)
          | \b(?:picking|pick|spitting|spit)\s+(?:up\s+)?(?:your|ur|his|her|their)\s+teeth
            \s+(?:up\s+)?(?:off|from|out\s+of)
          | \b(?:you|u)\s+(?:won't|will\s+not|wont)\s+(?:live\s+to\s+see|be\s+safe\s+anywhere)
          | \b(?:your|ur)\s+(?:family|kids|children|wife|husband|daughter|son|mum|mom|dad
            |parents)\s+(?:won't|will\s+not|wont|aren't|are\s+not|isn't|is\s+not)\s+(?:be\s+)?safe
            \b""",
        lowered_by=ALL_CONTEXTS - {NEGATION},
        subject_before=True,
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
            |pay\s+<OBJ>\s+a\s+(?:little\s+)?visit
            |teach\s+<OBJ>\s+a\s+lesson
            |waiting\s+(?:for\s+(?:you|u)\s+)?(?:outside|at|by|near)\s+(?:your|ur)\s+(?:house|home
              |place|door|work|office|school|car|gym)
            |(?:we're|we\s+are|they're|they\s+are)\s+coming\s+for\s+(?:you|u|him|her|them)
            |(?:i|we)(?:'ll|\s+will)\s+find\s+(?:you|u)\b(?!\s+(?:a|an|some|the)\b))\b""",
    ),
    R(
        "threat.weapon",
        (THREAT,),
        0.5,
        r"""\b(?:knife|knives|gun|guns|rifle|rifles|pistol|glock|shotgun|machete|axe|strap
            |acid|ak-?47|ar-?15|ammo|bullets?|rope|noose|gasoline|petrol|molotovs?|pipe\s+bombs?
            |baseball\s+bats?|bats?|crowbars?)\b""",
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
        r"""\b(?:every|each|any|a|the\s+average|your\s+average|this|that(?!\s+woman\b))\s+
            <group_singular>\s+(?:is|'s)\s+<DEHUMANISING>""",
    ),
    R(
        # "Muslim vermin", "refugees, those parasites", "animals like the Roma".
        "identity.apposition",
        (IDENTITY_ATTACK,),
        0.85,
        r"""\b<GROUP>(?:\s*[,:=-]\s*(?:those|these|the|such|all|just|nothing\s+but)\s+
              (?:[\w'-]+\s+)?(?:<dehumanising_plural>|<dehumanising_mass>)
            | \s*=\s*(?:<dehumanising_plural>|<dehumanising_mass>)
            | \s+(?:are\s+)?(?:infest|infesting|infested))\b
          | \b<group_modifiers>\s+(?:<VERMIN>|<VERMIN_ONE>)\b
          | \b<VERMIN>\s+(?:like|such\s+as)\s+(?:the\s+|those\s+|these\s+)?<GROUP>
          | \b<dehumanising_adjectives>\s+<GROUP>""",
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
        # Violence called for against a group: "let's kill all the …", "death to …".
        "identity.violence",
        (IDENTITY_ATTACK, THREAT),
        0.9,
        r"""\b(?:<INTENT>|<CALL>)\s+(?:go\s+|start\s+|just\s+|finally\s+|all\s+)*<SHORT_GAP>
            (?:<violent_acts>|round\s+up|rounding\s+up)\s+(?:all\s+(?:of\s+)?|every\s+(?:last\s+
            |single\s+)?|some\s+|any\s+|more\s+)?<GROUP>(?!')
          | \bdeath\s+to\s+(?:all\s+)?<GROUP>""",
        needs="violence",
    ),
    R(
        # "Somalis are cockroaches and should be stamped out".
        "identity.dehumanising_elimination",
        (IDENTITY_ATTACK, THREAT),
        0.9,
        r"""\b<GROUP>\s+<COPULA>\s+<DEHUMANISING>[^.!?\n]{0,40}?\b(?:should|must|need\s+to
            |needs\s+to|have\s+to|ought\s+to|deserve\s+to)\s+(?:all\s+|just\s+)*(?:be|get)\s+
            (?:\w+\s+)?(?:<PARTICIPLE>|stamped\s+out|rooted\s+out|snuffed\s+out)\b""",
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
      | shoot(?:ing)?\s+(?:[\w'-]+\s+){1,2}?(?:a|an)\s+(?:quick\s+)?(?:message|text|email
          |e-mail|dm|line|note|pm|call)
      | shoot(?:ing)?\s+(?:[\w'-]+\s+){1,3}?(?:portraits?|headshots|in\s+(?:natural|soft|golden
          |studio)\s+light|on\s+film|for\s+(?:the|a|our|their)\s+(?:magazine|catalogue|catalog
          |campaign|cover|brochure|website))
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
      | kill(?:ing)?\s+(?:[\w'-]+\s+){1,2}?with\s+kindness
      | (?:drown|drowning|smoke|smoking|freak|freaking|hang|hanging)\s+(?:[\w'-]+\s+){1,2}?out\b
      | hang(?:ing)?\s+(?:[\w'-]+\s+){1,2}?out\s+to\s+dry
      | burn(?:ing)?\s+(?:[\w'-]+\s+){1,2}?(?:a|an)\s+(?:cd|dvd|copy|disc|playlist)
      | gas(?:sing)?\s+(?:[\w'-]+\s+){1,2}?up\b
      | blow(?:ing)?\s+(?:your|his|her|their|ur|my)\s+noses?
      | cut(?:ting)?\s+(?:your|his|her|their|my|our)\s+teeth
      | jump(?:ing)?\s+(?:[\w'-]+\s+)?(?:start|the\s+(?:car|battery))
    )""",
    "negation": (
        r"\b(?:not|never|nobody|no\s+one|noone|neither|nor|no(?!\s+(?:better|different|more)"
        r"\s+than))\b|n't\b(?!\s+wait\b)"
        r"|\b(?:dont|wont|cant(?!\s+wait\b)|wouldnt|shouldnt|arent|isnt|didnt)\b"
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
          \s+(?:said|say|says|told|confirmed|reported|report|testified|heard|rules?\s+that|ruled
            |found|allege[sd]?)
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
        |cup|final|finals|halftime|(?:first|second|1st|2nd)\s+half|goal|goals|goalie|keeper
        |striker|defender|defen[cs]e
        |offen[cs]e|quarterback|pitcher|inning|touchdown|penalty|free\s+kick|corner|serve
        |backhand|round|level|boss|raid|dungeon|respawn|spawn|headshot|killstreak|kill\s+streak
        |frag|noob|lobby|server|loot|quest|xp|pvp|fps|valorant|warzone|fortnite|call\s+of\s+duty
        |minecraft|overwatch|apex|elden\s+ring|dark\s+souls|counter-?strike|csgo|cs2|dota
        |league\s+of\s+legends|jungler|chess|checkmate|team|teams|player|players|playoffs
        |play-offs|super\s+bowl|nba|nfl|premier\s+league|ranked|potions?|npc|mobs?|dragons?
        |zombies?|orcs?|healer|tank|dps|damage|rogue|mage|quest|achievement|semi\s+final
        |semi-final|title|title\s+race|race|marathon|5k|10k|lap|laps|track|sprint|fifa|madden
        |mario\s+kart|smash\s+bros|tekken|street\s+fighter|mortal\s+kombat|halo|rocket\s+league
        |pool|darts|bowling|ping\s+pong|tennis|golf|poker|monopoly|scrabble|uno)\b)""",
    "sports_ambiguous": (
        r"\b(?:kill\w*|murder\w*|shoot\w*|shot|slaughter\w*|butcher\w*|massacr\w*|destroy\w*"
        r"|crush\w*|bomb\w*|execut\w*|snip\w*|smok\w*|bur(?:y|ied)|beat\w*|whoop\w*)\b"
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


def _feminine(text: str) -> tuple[str, ...]:
    """A lexicon of Spanish plural adjectives in -os, each joined by its feminine in -as:
    "enfermos", "enfermas"."""
    entries = []
    for entry in _words(text):
        entries.append(entry)
        if entry.endswith("os"):
            entries.append(entry[:-2] + "as")
    return tuple(entries)


def _singulares(plurals: Iterable[str], *, keep: Iterable[str] = ()) -> tuple[str, ...]:
    """The singulars of one-word Spanish plurals, both genders: "gitanos" → "gitano",
    "gitana"; "musulmanes" → "musulman"; "marroquies" → "marroqui"."""
    singulars = []
    for plural in plurals:
        if " " in plural or plural in keep:
            continue
        if plural.endswith("os"):
            singulars += [plural[:-2] + "o", plural[:-2] + "a"]
        elif plural.endswith("es") and (plural[-3] not in "aeiou" or plural[-3:-2] in "iu"):
            singulars.append(plural[:-2])
        elif plural.endswith("s"):
            singulars.append(plural[:-1])
        else:
            singulars.append(plural)
    return tuple(singulars)


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
    # The singulars of the plural group nouns join these below.
    "group_singular": _words(
        """
        inmigrante, migrante, refugiado, extranjero, ilegal, mena, moro, musulman, judio,
        gitano, negro, homosexual, gay, trans, sudamericano
        """
    ),
    "dehumanising_plural": _words(
        """
        ratas, cucarachas, parasitos, animales, bestias, salvajes, alimanas, sabandijas, plagas,
        monos, cerdos, perros, aberraciones, demonios, piojos, pulgas, chinches, garrapatas,
        sanguijuelas, langostas, bichos, gusanos, insectos, roedores, germenes, bacterias,
        virus, hienas, orcos, mutantes, engendros, ganado, basura, escoria, mierda, lacra,
        chusma, gentuza, excremento, objetos, incubadoras, maquinas de parir, invasores, lastre,
        peso muerto
        """
    ),
    # Plural adjectives, in both genders: "son unas enfermas".
    "dehumanising_adjectives": _feminine(
        """
        subhumanos, infrahumanos, enfermos, sucios, inmundos, degenerados, pervertidos,
        asquerosos
        """
    ),
    "dehumanising_singular": _words(
        """
        plaga, enfermedad, cancer, virus, lacra, peste, infeccion, aberracion, rata, cucaracha,
        parasito, animal, bestia, tumor, escoria, basura, infestacion, epidemia, carga,
        estorbo, lastre, sanguijuela
        """
    ),
    # "<collective> de <group>": "esa plaga de inmigrantes", "la escoria de los menas".
    "dehumanising_collective": _words(
        """
        plaga, invasion, horda, hordas, infestacion, enjambre, basura, escoria, chusma,
        gentuza, lacra
        """
    ),
    "humanity": _words(
        """
        personas, humanos, seres humanos, gente, persona
        """
    ),
    # Who "muerte a …" can be aimed at, besides groups.
    "persons": _words(
        """
        traidores, traidoras, politicos, politicas, periodistas, jueces, juezas, ministros,
        ministras, alcaldes, concejales, diputados, diputadas, senadores, policias, guardias,
        maderos, profesores, curas, banqueros, fiscales, empresarios, sindicalistas, fachas,
        fascistas, rojos, comunistas, terroristas, nazis, chivatos, okupas, ricos, pobres,
        tiranos, tirano, rey, reyes, gobierno, dictador
        """
    ),
    # Where arson or an attack is aimed.
    "places": _words(
        """
        casa, casas, sede, sedes, mezquita, mezquitas, iglesia, iglesias, sinagoga, sinagogas,
        comisaria, cuartel, ayuntamiento, escuela, colegio, instituto, clinica, centro, tienda,
        local, bar, oficina, oficinas, redaccion, periodico, coche, coches, piso, chabola,
        chabolas, campamento, albergue, parlamento, congreso, juzgado, edificio, templo,
        negocio, chalet
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
# "cada inmigrante es…", "ese moro es…". Not colours, nor "el chino" (the corner shop), nor
# "patera" (a boat).
ES_LEXICONS["group_singular"] += _singulares(
    (
        entry
        for name, entries in ES_LEXICONS.items()
        if name.startswith("group_") and name not in ("group_sex", "group_singular")
        for entry in entries
    ),
    keep=_words("negros, negras, blancos, chinos, pateras"),
)

ES_FRAGMENTS = {
    "CLITIC": r"(?:lo|la|los|las|le|les|te|os)",
    # A person after the verb ("matar a…"), or a building ("quemar la sede").
    "ES_OBJ": r"(?:(?:a|al)\b|<ES_PLACE>)",
    "ES_PLACE": (
        r"(?:(?:la|las|el|los|su|sus|tu|tus|esa|ese|esas|esos|esta|este|estas|estos|nuestra"
        r"|nuestro|vuestra|vuestro)\s+(?:[\w'-]+\s+)?)?<places>\b"
    ),
    # Violent verbs that need a person: "matarlo", "matar a…", "te voy a matar".
    "ES_INF": r"""(?:matar|asesinar|disparar|apunalar|acuchillar|ahorcar|colgar|linchar|quemar
        |incendiar|fusilar|degollar|decapitar|exterminar|aniquilar|violar|envenenar|gasear
        |rajar|masacrar|ejecutar|torturar|erradicar|atropellar|apalear|tirotear|acribillar
        |estrangular|ahogar|liquidar|descuartizar|lapidar|secuestrar)""",
    "ES_BODY": r"""(?:cabeza|cara|craneo|crisma|jeta|morros|boca|dientes|cuello|piernas|brazos
        |costillas|rodillas|huesos|alma|espinazo|ojos|tripas|sesos)""",
    # Done to a body: "partirle la cara", "cortarle el cuello", "sacarle los ojos"; opening
    # only the head ("abrir la boca" is the dentist).
    "ES_BODY_ACT": r"""(?:(?:partir|romper|reventar|destrozar|volar|arrancar|cortar|sacar|aplastar)
        <CLITIC>?\s+(?:la|las|el|los)\s+<ES_BODY>
        |abrir<CLITIC>?\s+(?:la|el)\s+(?:cabeza|craneo|crisma))\b""",
    "ES_SHOT": (
        r"(?:(?:un|dos|tres|varios)\s+(?:tiros?|balazos?|navajazos?)|una\s+bala|un\s+disparo"
        r"|una\s+punalada)"
    ),
    # A beating. Sports talk gives one too ("les vamos a meter una paliza el domingo"), so it
    # needs a person: "te"/"os", or "a …" after it.
    "ES_BEATING": r"""(?:una\s+(?:paliza|tunda|somanta(?:\s+de\s+palos)?|manta\s+de\s+palos)
        |(?:una|dos|tres|cuatro)\s+hostias?|de\s+(?:palos|hostias)|un\s+escarmiento|matarile)""",
    "ES_VIOLENCE": r"""(?:
        <ES_INF><CLITIC>\b
      | <ES_INF>\s+<ES_OBJ>
      | (?:quemar|incendiar|volar|asaltar|arrasar)<CLITIC>?\s+<ES_PLACE>
      | <ES_BODY_ACT>
      | (?:pegar|meter|descerrajar)<CLITIC>?\s+<ES_SHOT>
      | (?:dar|pegar|meter|soltar|arrear)(?:te|os)\s+<ES_BEATING>
      | (?:dar|pegar|meter|soltar|arrear)<CLITIC>?\s+<ES_BEATING>(?:\s+[\w]+){0,3}?\s+(?:a|al)\s
      | (?:prender|pegar|meter)(?:le|les)?\s+fuego\s+(?:a|al)\b
      | (?:tirar|echar|arrojar|lanzar)<CLITIC>\s+(?:al\s+(?:rio|mar|pozo|vacio)
          |por\s+(?:la|una|el|un)\s+(?:ventana|balcon|puente|barranco|acantilado)
          |desde\s+(?:un|una|el|la)\s+(?:puente|azotea|balcon|ventana))
      | (?:colgar|ahorcar)<CLITIC>?\s+de\s+(?:un|una|el|la)\s+(?:arbol|farola|puente|grua|viga)
      | mandar<CLITIC>\s+al\s+(?:hospital|cementerio|otro\s+barrio|hoyo)
      | acabar\s+con\s+(?:el|ella|ellos|ellas|todos\s+ellos)\b
    )""",
    # First person present: "mato", "le partimos las piernas". With accents folded away it
    # is also the past of the third person ("lo mató", "le pegó un tiro"), so only "te" and
    # "os" make it a threat on their own; "lo", "le"… need a condition (threat.conditional).
    "ES_FIRST_PERSON": r"""(?:
        (?:mato|matamos|asesino|asesinamos|apunalo|apunalamos|acuchillo|ahorco|ahorcamos
          |degollo|deguello|degollamos|fusilo|fusilamos|lincho|linchamos|rajo|rajamos|reviento
          |reventamos|atropello|atropellamos)
      | (?:parto|partimos|rompo|rompemos|reviento|reventamos|abro|abrimos|destrozo|destrozamos
          |vuelo|volamos|arranco|arrancamos|corto|cortamos|saco|sacamos)
          \s+(?:la|las|el|los)\s+<ES_BODY>
      | (?:doy|damos|pego|pegamos|meto|metemos|suelto|soltamos)\s+<ES_BEATING>
      | (?:pego|pegamos|meto|metemos|descerrajo)\s+<ES_SHOT>
      | (?:mando|mandamos)\s+al\s+(?:hospital|cementerio|otro\s+barrio|hoyo)
    )\b""",
    # Third-person subjunctive: "que alguien le meta…", "ojalá lo maten".
    "ES_SUBJ": r"""(?:maten?|asesinen?|reviente[n]?\s+la\s+cabeza|quemen?|cuelguen?|ahorquen?
        |apunalen?|fusilen?|violen?|linchen?|degollen?|atropellen?|rajen?
        |(?:pegue|peguen|meta|metan)\s+<ES_SHOT>
        |(?:parta|partan|rompa|rompan|revienten?|corten?|arranquen?)\s+(?:la|las|el|los)\s+<ES_BODY>
        |(?:tire|tiren|eche|echen)\s+al\s+(?:rio|mar)
        |(?:prenda|prendan|pegue|peguen|meta|metan)\s+fuego)""",
    "ES_PARTICIPLE": r"""(?:fusilad|ahorcad|ejecutad|quemad|asesinad|exterminad|colgad|linchad
        |gasead|apalead|apunalad|degollad|tirotead|acribillad|torturad|descuartizad|lapidad
        |decapitad|aniquilad|atropellad|violad|muert)[oa]s?""",
    # Where a body is left: "aparecer en una cuneta".
    "ES_GRAVE": r"""(?:en\s+(?:una|la|el|un)\s+(?:cuneta|zanja|fosa|caja\s+de\s+pino|bolsa|ataud
        |fondo\s+del\s+(?:rio|mar))|en\s+el\s+fondo\s+del\s+(?:rio|mar)|flotando\s+en
        |con\s+los\s+pies\s+por\s+delante)""",
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
        (?:[\w'-]+\s+){0,3}?(?:<dehumanising_plural>|<dehumanising_adjectives>)
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
        r"""\b(?:<CLITIC>\s+(?:voy|vamos)\s+a\s+(?:<ES_INF>\b|<ES_BODY_ACT>
              |(?:pegar|meter|descerrajar)\s+<ES_SHOT>)
          | (?:te|os)\s+(?:voy|vamos)\s+a\s+(?:dar|pegar|meter|soltar|arrear)\s+<ES_BEATING>
          | (?:voy|vamos)\s+a\s+<ES_VIOLENCE>
          | (?:te|os)\s+<ES_FIRST_PERSON>
          | (?:te|os)\s+(?:quemo|quemamos|cuelgo|colgamos|machaco|machacamos)\b)""",
    ),
    R(
        "threat.conditional",
        (THREAT,),
        0.85,
        r"""\b(?:si|como|cuando|en\s+cuanto|el\s+dia\s+que|la\s+proxima\s+vez\s+que
            |al\s+(?:primero|proximo|siguiente)|a\s+la\s+(?:primera|proxima|siguiente))\s+
            [^.!?\n]{1,80}?\b<CLITIC>\s+<ES_FIRST_PERSON>""",
    ),
    R(
        "threat.call_to_action",
        (THREAT,),
        0.9,
        r"""\b(?:hay\s+que|habria\s+que|hace\s+falta|(?:alguien|algun\w*)\s+(?:deberia
            |tendria\s+que|tiene\s+que|podria|deberian)|deberiamos|tenemos\s+que
            |a\s+por\s+ellos\s+y)
            \s+(?:[\w]+\s+){0,2}?<ES_VIOLENCE>
          | \b(?:matemos|quememos|colguemos|ahorquemos|linchemos|fusilemos|apunalemos
              |incendiemos|exterminemos|asesinemos|quemamos|incendiamos|ardemos|linchamos)
              \s+(?:<ES_OBJ>|su|sus|tu|tus)
          | \bque\s+(?:alguien|algun\w*)\s+(?:<CLITIC>\s+)?<ES_SUBJ>\b
          | \bque\s+hay\s+que\s+<ES_INF>\b
          | (?:^|(?<=[.!?\n]))[^\S\n]*(?:matad|quemad|colgad|ahorcad|fusilad|matalos)\b
          | (?:^|(?<=[.!?,;\n])|\by\b)[^\S\n]*(?:maten|matad|quemen|quemad|cuelguen|colgad
              |ahorquen|ahorcad|fusilen|fusilad|linchen|linchad|apunalen|apunalad)(?:lo|la|los|las
              |le|les)\b""",
    ),
    R(
        "threat.should_die",
        (THREAT,),
        0.85,
        r"""\b(?:deberia|deberian|tendria\s+que|tendrian\s+que|merece|merecen|tiene\s+que
            |tienen\s+que|ojala)\s+(?:\w+\s+)?(?:morir|ser\s+<ES_PARTICIPLE>
            |(?:acabar|terminar|aparecer|amanecer)\s+(?:<ES_PARTICIPLE>|colgad[oa]s?\s+de
              |<ES_GRAVE>))
          | \bmerecen?\s+(?:un\s+tiro|la\s+muerte|la\s+horca|que\s+<CLITIC>\s+(?:maten|fusilen
              |cuelguen|ahorquen|quemen))""",
        subject_before=True,
    ),
    R(
        "threat.death_wish",
        (THREAT,),
        0.8,
        r"""\bojala\s+(?:que\s+)?(?:alguien\s+)?(?:<CLITIC>\s+)?(?:mueras?|muera[n]?|<ES_SUBJ>)\b
          | \bojala\s+(?:que\s+)?se\s+mueran?\b
          | \bque\s+se\s+mueran\b | \bque\s+te\s+mueras\b""",
    ),
    R(
        "threat.death_to",
        (THREAT,),
        0.85,
        r"""\bmuerte\s+(?:a|al)\s+(?:los\s+|las\s+|todos\s+los\s+|todas\s+las\s+|el\s+|la\s+)?
            (?:[\w]+\s+)?(?:<targets>)s?\b""",
    ),
    R(
        "threat.you_are_dead",
        (THREAT,),
        0.8,
        r"\b(?:estas\s+muert[oa]|eres\s+(?:hombre|mujer)\s+muert[oa]|estais\s+muertos)\b",
        lowered_by=ALL_CONTEXTS - {NEGATION},
    ),
    R(
        # What will become of the target: "te vas a tragar los dientes", "va a acabar en una
        # cuneta".
        "threat.outcome",
        (THREAT,),
        0.75,
        r"""\b(?:te|os)\s+(?:vas|vais)\s+a\s+tragar\s+los\s+dientes
          | \b(?:vas|vais|va|van)\s+a\s+(?:acabar|terminar|aparecer|salir|amanecer)\s+<ES_GRAVE>
          | \bno\s+(?:vas|vais)\s+a\s+volver\s+a\s+(?:andar|caminar|hablar)\b""",
        lowered_by=ALL_CONTEXTS - {NEGATION},
        subject_before=True,
    ),
    R(
        "threat.knows_where_you_live",
        (THREAT,),
        0.75,
        r"""\b(?:se|sabemos)\s+donde\s+(?:vives|trabajas|duermes|estudias|viven|vive|aparcas)\b
          | \b(?:se|sabemos)\s+(?:cual\s+es\s+tu|que)\s+(?:coche|casa|portal)\b""",
        lowered_by=ALL_CONTEXTS - {NEGATION},
    ),
    R(
        "threat.intimidation",
        (THREAT,),
        0.5,
        r"""\b(?:te\s+vas\s+a\s+(?:enterar|arrepentir)|(?:vas|vais)\s+a\s+pagar
            |(?:te|os)\s+(?:voy|vamos)\s+a\s+(?:encontrar|buscar|esperar)|cuidate\s+las\s+espaldas
            |(?:voy|vamos)\s+a\s+(?:encontrar|buscar|esperar)(?:te|os)
            |(?:te|os)\s+(?:espero|esperamos)\s+(?:a\s+la\s+salida|fuera|en\s+la\s+puerta
              |en\s+la\s+calle)
            |(?:voy|vamos)\s+a\s+por\s+(?:ti|vosotros|ellos|ellas|el|ella)
            |(?:<CLITIC>\s+(?:voy|vamos)\s+a\s+dar|dar(?:te|le|les|os))\s+una\s+leccion)\b""",
    ),
    R(
        "threat.bringing_weapon",
        (THREAT,),
        0.75,
        r"""\b(?:voy|vamos|iremos|ire)\s+(?:a|al)\s+(?:la\s+|el\s+)?(?:[\w]+\s+){0,2}?
            (?:manifestacion|pleno|reunion|colegio|instituto|mezquita|iglesia|sinagoga|mitin
              |concentracion|juicio|trabajo|oficina)\s+(?:[\w]+\s+){0,3}?con\s+(?:la|una|mi|el|un
              |nuestras?|las)\s+(?:pistolas?|escopetas?|navajas?|machetes?|bates?|fusil|rifle)\b""",
    ),
    R(
        "threat.weapon",
        (THREAT,),
        0.5,
        r"""\b(?:cuchillo|navaja|pistola|escopeta|rifle|machete|acido|balas?|fusil|gasolina
            |bates?)\b""",
        supporting=True,
    ),
    R(
        "identity.dehumanising",
        (IDENTITY_ATTACK,),
        0.9,
        r"""\b<GROUP>\s+(?:no\s+)?(?:son|eran|seran|parecen|se\s+comportan\s+como|solo\s+son)\s+
            <DEHUMANISING>""",
    ),
    R(
        "identity.dehumanising_singular",
        (IDENTITY_ATTACK,),
        0.9,
        r"""\b(?:cada|todo|un|el|ese|este|esa|esta)\s+<group_singular>\s+(?:no\s+)?es\s+
            <DEHUMANISING>""",
    ),
    R(
        "identity.apposition",
        (IDENTITY_ATTACK,),
        0.85,
        r"""\b<GROUP>\s*[,:=]\s*(?:esas|esos|estas|estos|las|los|unos|unas)\s+(?:[\w]+\s+)?
            (?:<dehumanising_plural>|<dehumanising_adjectives>)\b
          | \b(?:<GROUP_NOUN>|<group_singular>)\s+de\s+mierda\b""",
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
              |eliminad|fusilad|ahorcad|quemad|gasead)[oa]s)
          | \bmuerte\s+a\s+(?:todos\s+|todas\s+)?<GROUP>""",
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
    "idioms": r"""\b(?:matar\s+el\s+(?:tiempo|rato|gusanillo)|me\s+muero\s+de\s+(?:risa|ganas
        |hambre|sueno|verguenza|envidia)|de\s+muerte|me\s+esta[ns]?\s+matando|matame\s+camion
        |lo\s+peto|(?:mi|tu|su)\s+(?:madre|padre|jefe|jefa)\s+me\s+va\s+a\s+matar
        |matar\s+dos\s+pajaros|mat\w*\s+a\s+besos)\b""",
    # "No son más que ratas" is no negation.
    "negation": (
        r"\b(?:no(?!\s+(?:son|es|eran|era|seran)\s+mas\s+que\b)|nunca|jamas|nadie|ni|tampoco"
        r"|ningun|ninguna|ninguno)\b"
    ),
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
        |tanque|curandero|puerta|porteria|area|final|escuadra|larguero|travesano|corner)\b)""",
    "sports_ambiguous": (
        r"\b(?:matar|mata|matamos|disparar|masacrar|aplastar|reventar|destruir|fusilar"
        r"|eliminar|ejecutar|machac|paliz|destroz|revent|tiro|dispar|acab)\w*"
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
# The lexicons of violent verbs, dehumanising terms, slurs and insults join automatically, so
# a deployment's extra entries are never skipped.


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
        early grave, intensive care, coming for, run over, broke, torn, roughed, crucif, chop,
        hack, end up, ending up, wind up, be found, wash up, ambulance, hearse, bats, baseball
        bat, crowbar, pipes, shame if, pity if, know which, know what, round up, rounding up,
        against the wall, on fire, alight, ablaze, douse, dousing, soak, drench, petrol,
        for dead, bleeding, six feet, through the, through a, limb from limb, full of lead,
        gasoline, kerosene, throw, toss, chuck, push, drop, torpedo, limb from limb,
        through a straw, through a tube, teeth, live to see, be safe, waiting, coming for,
        stamped out, rooted out, snuffed out, fist, foot, boot, knee, hammer, brick, drive,
        driving, plow, plough, truck, time we, lesson, ass, whoop, whup, blood, hit by,
        find you, find u, splash, planted, placed, hidden, hid, left a, left an, left the,
        a bomb, taken out, infest
        """
    ),
    *_combos(
        "run running put putting send sending fill filling line lining pop popping",
        _EN_OBJECT_WORDS,
    ),
    *_combos("light lighting", "you u him her them em 'em"),
    *_combos("sink sinking ram ramming", "the their those these every"),
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
        sabemos donde, vas a pagar, vais a pagar, paliza, tunda, somanta, palos, hostia,
        escarmiento, matarile, punalada, tir, ech, arroj, lanz, cort, sac, arranc, vol, vuel,
        destroz, aplast, machac, abr, part, apale, acribill, estrangul, ahog, liquid,
        descuartiz, lapid, secuestr, asalt, arras, cuneta, zanja, fosa, ataud, caja de pino,
        pies por delante, fondo del, flotando, dientes, sabemos cual, se cual, sabemos que
        coche, se que coche, bates, gasolina, mand, hospital, otro barrio, cementerio, hoyo,
        espero, esperamos, mierda, leccion, manifestacion, pistol, escopet, navaj, cuchill,
        prend
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
    # Everyone a threat can be aimed at, as one trie: people, the groups (plural and singular)
    # and slurs. Violent acts name their target a score of times, and one trie is a fraction
    # of the size of the lexicons' separate alternations.
    targets = {
        entry
        for name, entries in lexicons.items()
        if name in ("persons", "slurs")
        or name.startswith("group_")
        and name not in ("group_adjectives", "group_modifiers")
        for entry in entries
    }
    # PERSON adds the plural ending: "muslims" is "muslim" + "s".
    lexicons["targets"] = sorted(
        entry
        for entry in targets
        if not (entry.endswith("s") and entry[:-1] in targets)
        and not (entry.endswith("es") and entry[:-2] in targets)
    )
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
        "violence": [
            *language.cues,
            *(
                entry
                for name in lexicons
                if name.startswith("violent_")
                for entry in lexicons[name]
            ),
        ],
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
