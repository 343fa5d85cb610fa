"""Demo data: partners and people (and, from the posts app on, synthetic posts). Seeding is
idempotent: every object is looked up by a natural key before it is created."""

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from factcheck.partners.models import MODERATORS_GROUP, Membership, Partner, User


@dataclass(frozen=True)
class DemoLogin:
    email: str
    role: str


PARTNERS = [
    # slug, name, languages, countries, accreditation id, days of accreditation left
    ("northwind-facts", "Northwind Facts", ["en"], ["US", "GB", "IE"], "IFCN-0142", 300),
    ("verifica-latam", "Verifica Latam", ["es"], ["MX", "AR", "CO", "ES"], "IFCN-0278", 200),
    ("verite-europe", "Vérité Europe", ["fr"], ["FR", "BE", "CH"], "IFCN-0311", -12),
]

PEOPLE = [
    # email, name, partner slug, role, moderator, admin
    ("admin@example.com", "Ada Admin", None, None, False, True),
    ("moderator@example.com", "Moe Moderator", None, None, True, False),
    ("lead1@example.com", "Lena Lead", "northwind-facts", Membership.Role.LEAD, False, False),
    (
        "checker1@example.com",
        "Chris Checker",
        "northwind-facts",
        Membership.Role.CHECKER,
        False,
        False,
    ),
    (
        "checker2@example.com",
        "Carla Comprobadora",
        "verifica-latam",
        Membership.Role.CHECKER,
        False,
        False,
    ),
    (
        "checker3@example.com",
        "Camille Contrôleuse",
        "verite-europe",
        Membership.Role.CHECKER,
        False,
        False,
    ),
]


def seed_people(*, password: str) -> list[DemoLogin]:
    today = timezone.localdate()
    with transaction.atomic():
        partners = {}
        for slug, name, languages, countries, accreditation_id, days_left in PARTNERS:
            partner, _ = Partner.objects.get_or_create(
                slug=slug,
                defaults={
                    "name": name,
                    "languages": languages,
                    "countries": countries,
                    "accreditation_body": "International Fact-Checking Network",
                    "accreditation_id": accreditation_id,
                    "accredited_until": today + timedelta(days=days_left),
                },
            )
            partners[slug] = partner
        moderators, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
        logins = []
        for email, name, partner_slug, role, moderator, admin in PEOPLE:
            user = User.objects.filter(email=email).first()
            if user is None:
                user = User.objects.create_user(
                    email=email, password=password, name=name, is_staff=admin, is_superuser=admin
                )
            else:
                user.set_password(password)
                user.save(update_fields=["password"])
            if partner_slug:
                Membership.objects.get_or_create(
                    user=user, defaults={"partner": partners[partner_slug], "role": role}
                )
            if moderator:
                user.groups.add(moderators)
            label = (
                "admin"
                if admin
                else "moderator"
                if moderator
                else f"{role} at {partners[partner_slug].name}"
            )
            if partner_slug and not partners[partner_slug].is_accredited:
                label += " (accreditation expired)"
            logins.append(DemoLogin(email=email, role=label))
    return logins


@dataclass
class SeedSummary:
    logins: list[DemoLogin]
    lines: list[str]


def seed(*, password: str, progress=print) -> SeedSummary:
    logins = seed_people(password=password)
    lines = [f"{Partner.objects.count()} partners, {User.objects.count()} people"]
    lines.append(seed_posts(progress=progress))  # posts app
    lines.append(seed_ratings())
    return SeedSummary(logins=logins, lines=lines)


# --- posts (posts app) ------------------------------------------------------------------------
# Synthetic trending posts in the demo partners' languages, pushed through the same ingest
# service as the API, so their snapshots and trending scores are what production computes.
# Deterministic (fixed seed, ids demo-<lang>-NNNN): a second run finds them and adds nothing.

DEMO_POSTS_PER_LANGUAGE = 120
DEMO_POST_COUNTRIES = {"en": ["US", "GB", "IE"], "es": ["MX", "AR", "CO", "ES"], "fr": ["FR", "BE"]}

DEMO_CLAIMS = {
    "en": [
        "BREAKING: drinking hot water with lemon every hour cures {illness}, doctors in {place} "
        "are hiding it!",
        "The {vaccine} vaccine contains microchips that track you through 5G towers. Share "
        "before they delete this.",
        "Hospitals in {place} are being paid ${number} for every {illness} death they report.",
        "Eating {food} twice a day reversed my diabetes in {days} days. Big Pharma hates this.",
        "Over {number} dead people voted in {place} last election, the official register proves "
        "it.",
        "Voting machines in {place} flipped {number} votes overnight, a technician confessed.",
        "You can now vote by text message in {place}: just send your candidate's name to {digits}.",
        "Polling stations in {place} will close at noon this year, tell everyone to go early!",
        "Scientists admit global warming stopped in {year}, NASA quietly changed the data.",
        "The floods in {place} were caused by a secret weather machine, not by rain.",
        "Snow in {place} this week proves climate change is a hoax.",
        "Wind turbines killed {number} birds in {place} last month alone, the report was buried.",
        "{celebrity} was arrested at {place} airport with {number} kg of gold, media silent.",
        "{celebrity} has died, the family confirmed this morning. RIP.",
        "{celebrity} said people who earn under ${number} a year should not be allowed to vote.",
        "Photo shows the {place} bridge collapsing after the earthquake today.",
        "Tap water in {place} is poisoned after the chemical spill, do NOT drink it for "
        "{days} days.",
        "A {number}-metre tsunami will hit {place} tonight according to leaked government "
        "warnings.",
        "The government of {place} will confiscate all savings above ${number} next month.",
        "Petrol will cost ${digits} per litre from Monday, stock up now.",
    ],
    "es": [
        "URGENTE: tomar agua caliente con limón cada hora cura {illness}, los médicos de "
        "{place} lo ocultan.",
        "La vacuna {vaccine} contiene microchips que te rastrean por las antenas 5G. Compártelo "
        "antes de que lo borren.",
        "Los hospitales de {place} cobran {number} pesos por cada muerte por {illness} que "
        "reportan.",
        "Comer {food} dos veces al día me curó la diabetes en {days} días.",
        "Más de {number} muertos votaron en {place} en las últimas elecciones, el padrón lo "
        "demuestra.",
        "Las urnas electrónicas de {place} cambiaron {number} votos de madrugada, lo confesó "
        "un técnico.",
        "Ahora se puede votar por SMS en {place}: manda el nombre de tu candidato al {digits}.",
        "Las casillas de {place} cerrarán al mediodía este año, ¡avisa a todos!",
        "Los científicos admiten que el calentamiento global se detuvo en {year}.",
        "Las inundaciones de {place} las causó una máquina secreta del clima, no la lluvia.",
        "La nieve en {place} esta semana demuestra que el cambio climático es un invento.",
        "{celebrity} fue detenido en el aeropuerto de {place} con {number} kg de oro.",
        "{celebrity} murió esta mañana, lo confirmó su familia. QEPD.",
        "Foto del puente de {place} derrumbándose tras el terremoto de hoy.",
        "El agua del grifo en {place} está envenenada tras el derrame químico, no la bebas "
        "en {days} días.",
        "Un tsunami de {number} metros llegará a {place} esta noche según un aviso filtrado.",
        "El gobierno de {place} confiscará los ahorros de más de {number} pesos el mes que viene.",
    ],
    "fr": [
        "URGENT : boire de l'eau chaude au citron toutes les heures guérit {illness}, les "
        "médecins de {place} le cachent !",
        "Le vaccin {vaccine} contient des puces qui vous suivent grâce à la 5G. Partagez avant "
        "la censure.",
        "Les hôpitaux de {place} touchent {number} euros par décès déclaré, même sans lien "
        "avec {illness}.",
        "Manger du {food} deux fois par jour a guéri mon diabète en {days} jours.",
        "Plus de {number} morts ont voté à {place} lors de la dernière élection.",
        "Les machines à voter de {place} ont inversé {number} voix pendant la nuit, un "
        "technicien a tout avoué.",
        "On peut désormais voter par SMS à {place} : envoyez le nom de votre candidat au {digits}.",
        "Les bureaux de vote de {place} fermeront à midi cette année, prévenez tout le monde !",
        "Les scientifiques admettent que le réchauffement s'est arrêté en {year}.",
        "Les inondations de {place} ont été provoquées par une machine météo secrète.",
        "La neige à {place} cette semaine prouve que le changement climatique est un canular.",
        "{celebrity} a été arrêté à l'aéroport de {place} avec {number} kg d'or.",
        "{celebrity} est décédé ce matin, sa famille l'a confirmé.",
        "Photo du pont de {place} qui s'effondre après le séisme d'aujourd'hui.",
        "L'eau du robinet à {place} est empoisonnée après la fuite chimique, ne la buvez pas "
        "pendant {days} jours.",
        "Un tsunami de {number} mètres frappera {place} cette nuit selon une alerte qui a fuité.",
    ],
}
DEMO_FILLERS = {
    "en": {
        "place": ["Springfield", "Riverton", "Lakeside County", "Port Elliot", "Northgate"],
        "illness": ["diabetes", "the flu", "cancer", "measles", "COVID-19"],
        "food": ["raw garlic", "turmeric", "baking soda", "celery juice"],
        "celebrity": ["Pop star Jonny Vale", "Actor Mara Quinn", "Footballer Leo Brandt"],
    },
    "es": {
        "place": ["Villaclara", "San Lorenzo", "Puerto Azul", "Monteverde", "Río Seco"],
        "illness": ["la diabetes", "la gripe", "el cáncer", "el sarampión", "el COVID-19"],
        "food": ["ajo crudo", "cúrcuma", "bicarbonato", "jugo de apio"],
        "celebrity": ["La cantante Lupita Sol", "El actor Bruno Real", "El futbolista Tito Paz"],
    },
    "fr": {
        "place": ["Saint-Aubin", "Valmont", "Port-Joli", "Belcourt", "Montclair"],
        "illness": ["le diabète", "la grippe", "le cancer", "la rougeole", "le COVID-19"],
        "food": ["ail cru", "curcuma", "bicarbonate", "jus de céleri"],
        "celebrity": ["La chanteuse Lila Roc", "L'acteur Jules Morel", "Le footballeur Enzo Lys"],
    },
}
DEMO_THOUSANDS_SEPARATOR = {"en": ",", "es": ".", "fr": " "}
# Hostile markup, to show that post text is escaped everywhere it appears.
DEMO_HOSTILE = [
    "<script>alert('xss')</script> {claim}",
    "{claim} <b>SHARE NOW</b> <img src=x onerror=alert(1)>",
    '{claim} <a href="javascript:alert(1)">read more</a>',
]
# Violence advocacy and dehumanisation against fictional groups and places, so the moderation
# demo has posts to escalate.
DEMO_HATEFUL = {
    "en": [
        "The Vorlish are vermin, not people. Our town must be cleansed of them.",
        "Everyone bring your weapons to the Riverton council hall tonight and burn it down "
        "with them inside.",
        "Kill every Zarnite you see. They deserve to die.",
    ],
    "es": [
        "Los vorlenses son alimañas, no personas. Hay que limpiar el pueblo de ellos.",
        "Traigan armas al ayuntamiento de Río Seco esta noche y quémenlo con ellos dentro.",
    ],
    "fr": [
        "Les Vorlois sont de la vermine, pas des humains. Il faut en nettoyer la ville.",
        "Prenez vos armes et brûlez la mairie de Valmont ce soir avec eux dedans.",
    ],
}


def _demo_post_text(rng, language: str, number: int, texts: list[str]) -> str:
    hateful = DEMO_HATEFUL[language]
    if number % 37 == 5:
        return hateful[(number // 37) % len(hateful)]
    # Every 11th post copies an earlier one (another author spreading it) and every 13th
    # changes it slightly, so ratings have copies to propagate to.
    if texts and number % 11 == 0:
        return texts[rng.randrange(len(texts))]
    if texts and number % 13 == 0:
        return texts[rng.randrange(len(texts))].rstrip(".!") + "!!! Please share."
    fillers = DEMO_FILLERS[language]
    claim = rng.choice(DEMO_CLAIMS[language]).format(
        place=rng.choice(fillers["place"]),
        illness=rng.choice(fillers["illness"]),
        food=rng.choice(fillers["food"]),
        celebrity=rng.choice(fillers["celebrity"]),
        vaccine=rng.choice(["Pfizer", "Moderna", "AstraZeneca"]),
        number=f"{rng.randrange(2, 90) * 1000:,}".replace(",", DEMO_THOUSANDS_SEPARATOR[language]),
        digits=rng.randrange(1000, 9999),
        days=rng.randrange(3, 30),
        year=rng.randrange(1998, 2016),
    )
    if number % 29 == 3:
        return rng.choice(DEMO_HOSTILE).format(claim=claim)
    return claim


def _demo_post_items(rng, language: str, number: int, text: str, now) -> list[dict]:
    """One post's items: 3 to 8 snapshots between its publication and now."""
    age_hours = rng.uniform(2.0, 30.0)
    published_at = now - timedelta(hours=age_hours)
    snapshots = rng.randrange(3, 9)
    # Most posts grow steadily; a few go viral late, a few stall.
    growth = rng.choice([1.0, 1.0, 1.0, 3.0, 0.2]) * rng.uniform(50, 2500)
    share_rate = rng.uniform(0.005, 0.05)
    author = rng.randrange(1, 41)
    post = {
        "id": f"demo-{language}-{number:04d}",
        "author": {"id": f"demo-author-{language}-{author:02d}", "name": f"Demo user {author}"},
        "url": f"https://social.example/{language}/posts/{number}",
        "text": text,
        "language": language,
        "country": rng.choice(DEMO_POST_COUNTRIES[language]),
        "published_at": published_at.isoformat(),
    }
    items, views, shares, reports = [], 0, 0, 0
    hateful = text in DEMO_HATEFUL[language]
    for step in range(1, snapshots + 1):
        hours = age_hours * step / snapshots
        views += int(growth * (age_hours / snapshots) * rng.uniform(0.5, 1.5))
        shares = max(shares, int(views * share_rate))
        reports += rng.randrange(5, 40) if hateful else rng.randrange(0, 2)
        metrics = {
            "observed_at": (published_at + timedelta(hours=hours)).isoformat(),
            "shares": shares,
            "views": views,
            "comments": views // 40,
            "reactions": views // 12,
            "reports_hate": reports,
            "reports_violence": reports // 2 if hateful else 0,
        }
        items.append({**post, "metrics": metrics})
    return items


def seed_posts(*, progress=print) -> str:
    import random

    from factcheck.posts.models import EngagementSnapshot, Post
    from factcheck.posts.services import INGEST_MAX_POSTS, posts_ingest

    rng = random.Random(20260301)
    now = timezone.now() - timedelta(minutes=1)
    posts: list[list[dict]] = []
    for language in DEMO_POST_COUNTRIES:
        texts: list[str] = []
        for number in range(1, DEMO_POSTS_PER_LANGUAGE + 1):
            text = _demo_post_text(rng, language, number, texts)
            texts.append(text)
            posts.append(_demo_post_items(rng, language, number, text, now))
    existing = set(
        Post.objects.filter(external_id__startswith="demo-").values_list("external_id", flat=True)
    )
    missing = [items for items in posts if items[0]["id"] not in existing]
    created = 0
    batch: list[dict] = []
    for index, items in enumerate(missing, start=1):
        if len(batch) + len(items) > INGEST_MAX_POSTS:
            created += posts_ingest(posts=batch, actor="system:demo").created
            batch = []
        batch.extend(items)
        if index % 60 == 0:
            progress(f"  posts: {index}/{len(missing)}")
    if batch:
        created += posts_ingest(posts=batch, actor="system:demo").created
    demo = Post.objects.filter(external_id__startswith="demo-")
    snapshots = EngagementSnapshot.objects.filter(post__external_id__startswith="demo-").count()
    return (
        f"{demo.count()} demo posts in {', '.join(DEMO_POST_COUNTRIES)} ({created} new), "
        f"{snapshots} engagement snapshots"
    )


# --- ratings and demotions --------------------------------------------------------------------
# A few ratings so the review pages, the dashboard and the ranker API have something to show:
# Northwind Facts' lead rates some English posts, three of one author's posts false (a repeat
# offender: ×0.5 on all of that author's posts), and Verifica Latam rates some Spanish posts.

DEMO_RATINGS = [
    # partner slug, rater email, language, how many posts, verdicts in turn
    ("northwind-facts", "lead1@example.com", "en", 6, ["false", "partly_false", "missing_context"]),
    ("verifica-latam", "checker2@example.com", "es", 4, ["false", "altered", "true"]),
]


def seed_ratings() -> str:
    from factcheck.demotion.services import demotion_apply
    from factcheck.posts.models import Post
    from factcheck.ratings.models import Rating
    from factcheck.ratings.services import rating_create

    demo_ratings = Rating.objects.filter(post__external_id__startswith="demo-")
    if demo_ratings.exists():
        return f"{demo_ratings.count()} demo ratings (already seeded)"
    queued = Post.objects.filter(external_id__startswith="demo-", status=Post.Status.QUEUED)
    planned: list[tuple[Post, str, str, str]] = []
    for slug, email, language, count, verdicts in DEMO_RATINGS:
        posts = list(queued.filter(language=language).order_by("external_id")[10 : 10 + count])
        planned += [
            (post, slug, email, verdicts[i % len(verdicts)]) for i, post in enumerate(posts)
        ]
    # The English author with the most posts becomes the repeat offender.
    authors = {}
    for post in queued.filter(language="en").order_by("external_id"):
        authors.setdefault(post.author_external_id, []).append(post)
    offender_posts = max(authors.values(), key=len)[:3]
    planned += [(post, "northwind-facts", "lead1@example.com", "false") for post in offender_posts]

    partners = {p.slug: p for p in Partner.objects.filter(slug__in={row[1] for row in planned})}
    people = {u.email: u for u in User.objects.filter(email__in={row[2] for row in planned})}
    rated = set()
    for post, slug, email, verdict in planned:
        if post.pk in rated:
            continue
        rated.add(post.pk)
        rating_create(
            post=post,
            partner=partners[slug],
            checker=people[email],
            verdict=verdict,
            headline=f"Demo fact-check: {verdict.replace('_', ' ')}",
            summary="A demo rating written by the seed command.",
            article_url=""
            if verdict == "true"
            else f"https://facts.example/demo/{post.external_id}",
        )
    # Apply now, so the ranker API shows them before the worker starts; the tasks the ratings
    # enqueued find nothing left to change.
    for post_id in sorted(rated):
        demotion_apply(post_id=post_id)
    return f"{len(rated)} demo ratings, one author with 3 strikes"
