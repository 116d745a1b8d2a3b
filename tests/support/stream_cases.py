"""Many synthetic articles and a content-aware responder, for stream tests with real Kafka.

Integration tests push dozens of articles through the worker at once, so answers cannot be
scripted per model in FIFO order: the scripted OpenAI server must answer by content. This
module makes the articles and the responder that finds each one in a request::

    cases = make_articles(30)
    answer = responder(cases, PRIMARY, FALLBACK)
    with running_server() as server:
        server.respond_with(answer)
        ...  # ingest every case (url=case.url, html=case.html, no feed), run the worker
        for case in cases:
            want = expected(case)  # hygiene path and attempts, enrichment outcome, Markdown
        assert answer.unmatched == [] and answer.mismatched == []

Pages are realistic news HTML (head with title and Open Graph, byline, ``<time datetime>``,
4-7 paragraphs of prose in Portuguese or English, navigation, most-read list, footer). Each
carries a unique marker (``ZK<seed>-<index>``, e.g. ``ZK0-0007``) in its title and in the
dateline of its first paragraph. The title reaches both calls: the hygiene context lists it
among the metadata candidates and the enrichment context starts with the assembled title.

A case's scenario decides the answers, cycled in ``SCENARIOS`` order:

- ``primary``: the primary model answers a valid hygiene proposal;
- ``fallback``: the primary invents a block ID, the fallback answers valid;
- ``deterministic``: the primary invents a block ID, the fallback answers prose (not JSON),
  so the runtime takes its deterministic path;
- ``enrich_terminal``: hygiene as ``primary``, but the primary's enrichment cites an unknown
  evidence block and the fallback's has too few tags: a terminal enrichment failure.

Every other enrichment request gets a valid answer from either model. The three paths assemble
three different articles, so a test can tell which one ran:

- the page's second story paragraph carries invisible debris (a zero-width space inside a
  word, ``DEBRIS``); both models' valid answers repair it (an accepted ``unicode`` repair),
  the deterministic path keeps it;
- the primary's valid answer also leaves out the last story paragraph (another selection),
  the fallback's keeps every paragraph.

``expected(case).paragraphs`` is the article a test reads from the page itself (the story's
paragraphs with selectolax, with the scenario's edits), independent of the harness;
``expected(case).markdown`` is what the harness assembles from the scenario's answer, for
tests that compare hashes.
The candidate set is built with ``build_candidates(case.html, url=case.url)`` and no feed
metadata: a worker that builds it otherwise sees other IDs (``mismatched`` says so).
"""

from __future__ import annotations

import functools
import html as html_lib
import random
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, get_args

from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates import build_candidates
from article_runtime.deterministic import deterministic_proposal
from article_runtime.enrichment.blocks import build_enrichment_input
from article_runtime.enrichment.call import ENRICHMENT
from article_runtime.enrichment.model import EnrichmentInput, Entity
from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.hygiene import HYGIENE
from article_runtime.hygiene_context import render_hygiene_context
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.render import DATA_CLOSE, DATA_OPEN, enrichment_messages
from article_runtime.model import AssembledArticle, CandidateSet
from article_runtime.model.attempts import LogicalCall, Role
from tests.support.openai_server import Action, Reply

__all__ = [
    "DEBRIS",
    "LANGUAGES",
    "MARKER_PREFIX",
    "NOT_JSON",
    "REASON_NOT_JSON",
    "REASON_TOO_FEW_TAGS",
    "REASON_UNKNOWN_BLOCK",
    "REASON_UNKNOWN_EVIDENCE",
    "SCENARIOS",
    "Attempt",
    "CallKind",
    "CaseAnswers",
    "CaseArticle",
    "CaseResponder",
    "Expected",
    "HygienePath",
    "Language",
    "Scenario",
    "assembled",
    "call_kind",
    "expected",
    "find_markers",
    "make_articles",
    "responder",
    "story_paragraphs",
]

Scenario = Literal["primary", "fallback", "deterministic", "enrich_terminal"]
SCENARIOS: tuple[Scenario, ...] = get_args(Scenario)
Language = Literal["pt", "en"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
HygienePath = Literal["primary", "fallback", "deterministic"]
CallKind = LogicalCall
SENTIMENTS = ("positive", "negative", "neutral")

MARKER_PREFIX = "ZK"
DEBRIS = "\u200b"  # ZERO WIDTH SPACE, inside a word of every page's second story paragraph
_MARKER_CHARS = frozenset("0123456789-")
# Any entity will do: enrichment evidence and the data section do not depend on it.
_ENTITY = Entity(qid="Q0", name="stream cases")

# The invalid answers, and the reason the runtime's harnesses give for each.
NOT_JSON = "Sure! Here is the cleaned-up article, ready to publish."
REASON_UNKNOWN_BLOCK = "unknown_block_id"
REASON_NOT_JSON = "invalid_json"
REASON_UNKNOWN_EVIDENCE = "unknown_evidence_id"
REASON_TOO_FEW_TAGS = "too_few_tags"


# -- the articles ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseArticle:
    """One synthetic article as ingestion would hand it over, plus what the test scripts.

    ``answers`` is computed once per case (candidates, harness, evidence) and cached.
    """

    index: int
    article_id: str
    url: str
    html: bytes
    language: Language
    scenario: Scenario
    marker: str
    title: str
    sentiment: str
    tag_phrases: tuple[str, ...]  # tag candidates written verbatim into the prose

    @cached_property
    def answers(self) -> CaseAnswers:
        return _build_answers(self)


@dataclass(frozen=True)
class _Topic:
    title: str
    paragraphs: tuple[str, ...]  # HTML fragments; the first is the lede
    tags: tuple[str, ...]  # each written verbatim in the lede or a later paragraph


@dataclass(frozen=True)
class _Locale:
    language: Language
    html_lang: str
    sites: tuple[tuple[str, str], ...]  # (name, domain)
    sections: tuple[str, ...]
    cities: tuple[str, ...]
    people: tuple[str, ...]
    weekdays: tuple[str, ...]
    months: tuple[str, ...]
    money: str  # format of an amount in millions
    byline: str
    most_read: str
    newsletter: str
    subscribe: str
    rights: str
    footer_links: tuple[str, ...]
    more: str  # a sentence ending with a link to the city's coverage
    caption: str
    tz: str
    topics: tuple[_Topic, ...]


_PT_TOPICS = (
    _Topic(
        "{city} anuncia plano de drenagem para conter enchentes na periferia",
        (
            "A prefeitura de {city} apresentou nesta {weekday} um plano de drenagem que prevê "
            "{count} obras em bairros atingidos por enchentes nos últimos verões.",
            "Segundo {person}, titular da Secretaria de Infraestrutura, as primeiras frentes "
            "de trabalho começam em {month} e vão priorizar canais assoreados e galerias antigas.",
            "O investimento estimado é de {money}, parte financiada por um empréstimo federal "
            "aprovado no ano passado.",
            "Moradores ouvidos pela reportagem disseram que a água chegou a um metro de altura "
            "em algumas ruas durante a última temporada de chuvas.",
            "Na avaliação de {expert}, da escola de engenharia da universidade estadual, o "
            "plano acerta ao combinar obras pesadas com a recuperação de áreas verdes.",
            "A oposição na Câmara Municipal pediu a divulgação do cronograma completo e "
            "questionou a escolha dos bairros contemplados na primeira etapa.",
            "A prefeitura promete publicar relatórios trimestrais sobre o andamento das obras "
            "no portal da transparência.",
        ),
        ("plano de drenagem", "enchentes", "{city}", "galerias antigas", "{person}"),
    ),
    _Topic(
        "Primeira linha de ônibus elétricos começa a circular em {city}",
        (
            "A primeira linha de ônibus elétricos de {city} começou a circular nesta {weekday} "
            "com {count} veículos, ligando o centro aos bairros da zona leste.",
            "De acordo com {person}, responsável pela Secretaria de Mobilidade, a tarifa "
            "continua a mesma e os passageiros poderão pagar com cartão ou celular.",
            "Os veículos foram fabricados no interior de São Paulo e custaram {money}, valor "
            "dividido entre o município e o governo estadual.",
            "Os motoristas passaram por um treinamento de três semanas para aprender a usar a "
            "frenagem regenerativa, que devolve energia às baterias.",
            "Para {expert}, que pesquisa transporte público na universidade federal, a troca "
            "reduz o ruído nas avenidas e a emissão de poluentes no horário de pico.",
            "Passageiros reclamaram, porém, da falta de abrigos nos pontos e da demora nos "
            "primeiros dias, quando parte da frota ficou parada para ajustes.",
            "A prefeitura pretende lançar outras duas linhas até o fim do ano, desde que a nova "
            "garagem com carregadores fique pronta a tempo.",
        ),
        ("ônibus elétricos", "zona leste", "{city}", "tarifa", "{person}"),
    ),
    _Topic(
        "Hospital regional de {city} amplia o atendimento de urgência",
        (
            "O hospital regional de {city} inaugurou nesta {weekday} uma nova ala de urgência "
            "com {count} leitos, o que deve reduzir a espera nos corredores durante o inverno.",
            "A direção da unidade, chefiada por {person}, informou que a equipe recebeu "
            "quarenta novos profissionais, entre médicos, enfermeiros e técnicos.",
            "A obra levou dois anos e consumiu {money}, recursos que vieram em parte de "
            "emendas parlamentares.",
            "Pacientes que aguardavam atendimento na manhã da inauguração relataram alívio, mas "
            "cobraram mais especialistas em pediatria.",
            "Na opinião de {expert}, sanitarista com longa experiência na rede pública, a "
            "ampliação é bem-vinda, mas a fila só diminui se os postos abrirem à noite.",
            "O sindicato dos enfermeiros alertou que a contratação temporária de parte da equipe "
            "pode gerar rotatividade e falhas nos plantões.",
            "A secretaria estadual vai acompanhar os indicadores de tempo de espera e divulgar "
            "os números todos os meses.",
        ),
        ("hospital regional", "urgência", "{city}", "leitos", "{person}"),
    ),
    _Topic(
        "Escolas municipais de {city} adotam o ensino em tempo integral",
        (
            "Cerca de {count} escolas municipais de {city} passaram a funcionar em tempo "
            "integral nesta {weekday}, com reforço, esporte e música no período da tarde.",
            "Segundo {person}, à frente da Secretaria de Educação, os alunos almoçam na escola "
            "e a merenda foi reforçada com frutas de produtores locais.",
            "O programa custará {money} por ano e prevê a contratação de professores para "
            "oficinas de ciências e de leitura.",
            "Pais ouvidos na porta de uma escola do centro aprovaram a mudança, embora alguns "
            "temam o cansaço das crianças menores.",
            "Para {expert}, que estuda políticas educacionais, a jornada ampliada só melhora o "
            "aprendizado quando as atividades da tarde têm objetivos claros.",
            "O sindicato dos professores reivindica que as horas extras sejam pagas "
            "integralmente e que as turmas não passem de trinta alunos.",
            "Uma avaliação independente deve medir, no fim do ano, o efeito do programa sobre a "
            "frequência e as notas de matemática.",
        ),
        ("tempo integral", "escolas municipais", "{city}", "merenda", "{person}"),
    ),
    _Topic(
        "Produtores do entorno de {city} esperam safra maior de café",
        (
            "Os produtores de café do entorno de {city} esperam colher neste ano uma safra até "
            "{count} por cento maior, graças às chuvas regulares durante a florada.",
            "À frente da cooperativa regional, {person} afirmou que a qualidade dos grãos "
            "também melhorou e que compradores estrangeiros já fazem encomendas.",
            "A cooperativa prevê faturar {money} com as exportações, principalmente para a "
            "Europa e o Japão.",
            "A falta de mão de obra para a colheita, no entanto, preocupa os sitiantes, que "
            "disputam trabalhadores com as lavouras vizinhas.",
            "Especialista em cafeicultura, {expert} recomenda cautela: uma geada tardia ou um "
            "período seco em {month} ainda pode reduzir a produtividade.",
            "Pequenos agricultores pedem crédito mais barato para comprar secadores e guardar o "
            "café à espera de preços melhores.",
            "O sindicato rural fará uma feira em {month} para apresentar máquinas e técnicas de "
            "colheita a quem planta em áreas de encosta.",
        ),
        ("safra", "café", "{city}", "cooperativa", "{person}"),
    ),
    _Topic(
        "Festival de cinema de {city} recebe número recorde de inscrições",
        (
            "O festival de cinema de {city} recebeu {big} inscrições de curtas e "
            "longas-metragens, um recorde desde a primeira edição, anunciou a organização "
            "nesta {weekday}.",
            "A direção artística, a cargo de {person}, contou que a curadoria assistiu a todos "
            "os filmes em três meses e que metade das obras vem de estreantes.",
            "O orçamento do evento é de {money}, bancado por patrocinadores privados e por uma "
            "lei municipal de incentivo à cultura.",
            "As sessões serão gratuitas e ocuparão cinemas de rua, centros culturais e um telão "
            "montado na praça principal.",
            "Na leitura de {expert}, que escreve sobre cinema há duas décadas, o aumento mostra "
            "que a produção regional amadureceu e encontrou público fora das capitais.",
            "Produtores independentes, por outro lado, reclamam que os prêmios em dinheiro "
            "continuam os mesmos de cinco anos atrás.",
            "A programação completa será divulgada em {month}, junto com a lista de jurados e "
            "as oficinas para jovens realizadores.",
        ),
        ("festival de cinema", "inscrições", "{city}", "curadoria", "{person}"),
    ),
)

_EN_TOPICS = (
    _Topic(
        "{city} council approves flood defence scheme for riverside streets",
        (
            "Councillors in {city} on {weekday} approved a flood defence scheme that will raise "
            "walls and widen drains along {count} riverside streets flooded last winter.",
            "The council's head of infrastructure, {person}, said the first contractors would "
            "arrive in {month} and start where the river burst its banks.",
            "The scheme is expected to cost {money}, with most of the money coming from a "
            "national resilience fund.",
            "Residents who spent weeks in temporary housing after the last flood said they "
            "welcomed the plan but wanted a firm timetable.",
            "Hydrologist {expert}, who advised the council, said higher walls alone would not be "
            "enough unless farmland upstream could hold water during storms.",
            "Opposition members asked why two streets on the east bank were left out of the "
            "first phase and called for the cost estimates to be published.",
            "Progress reports will be posted online every quarter, the council said.",
        ),
        ("flood defence", "riverside streets", "{city}", "drains", "{person}"),
    ),
    _Topic(
        "Rail operator adds late-night trains between {city} and the coast",
        (
            "A regional rail operator will run late-night trains between {city} and the coast "
            "from {month}, adding {count} services a week after complaints from shift workers.",
            "Operations director {person} said the last departure would leave shortly after "
            "midnight and that fares would match daytime prices.",
            "The extra services will cost about {money} a year to run, partly covered by the "
            "regional transport authority.",
            "Nurses, cleaners and hospitality staff had petitioned for months, saying a taxi "
            "home cost them almost a day's wages.",
            "Transport researcher {expert} said night services rarely pay for themselves but "
            "can keep town centres alive after dark.",
            "Some residents near the stations raised concerns about noise, and the operator "
            "promised quieter braking on its newer carriages.",
            "The trial will be reviewed after six months, when passenger numbers will decide "
            "whether the timetable stays.",
        ),
        ("late-night trains", "shift workers", "{city}", "coast", "{person}"),
    ),
    _Topic(
        "Hospital in {city} opens new emergency wing after two-year build",
        (
            "The main hospital in {city} opened a new emergency wing on {weekday} with {count} "
            "beds, which managers hope will end the long waits seen in corridors last winter.",
            "Chief executive {person} said forty extra doctors, nurses and technicians had been "
            "hired to staff the wing around the clock.",
            "The building cost {money} and includes a separate area for children and a rapid "
            "assessment unit.",
            "Patients waiting on the first morning said the new rooms were calmer, though "
            "several asked for more specialists at weekends.",
            "Public health expert {expert} said the wing was welcome but that waiting times "
            "would only fall if local clinics stayed open in the evening.",
            "The nurses' union warned that relying on agency staff could lead to high turnover "
            "and gaps in night shifts.",
            "The health board said it would publish waiting times for the wing every month.",
        ),
        ("emergency wing", "beds", "{city}", "corridors", "{person}"),
    ),
    _Topic(
        "Primary schools in {city} try out a longer school day",
        (
            "About {count} primary schools in {city} began a longer school day on {weekday}, "
            "adding afternoon sessions of sport, music and reading support.",
            "Education lead {person} said every child would now get a hot lunch and that school "
            "meals would use fruit from local growers.",
            "The programme will cost {money} a year and pays for extra staff to run science "
            "clubs and reading groups.",
            "Parents at the gate of a school near the town centre mostly backed the change, "
            "although some worried about tired younger children.",
            "Education researcher {expert} said a longer day only improves learning when the "
            "afternoon activities have clear goals.",
            "The teachers' union wants overtime paid in full and classes capped at thirty pupils.",
            "An independent evaluation at the end of the year will measure the effect on "
            "attendance and maths results.",
        ),
        ("longer school day", "primary schools", "{city}", "reading support", "{person}"),
    ),
    _Topic(
        "Growers near {city} expect a bumper apple harvest",
        (
            "Fruit growers around {city} expect this year's apple harvest to be up to {count} "
            "per cent larger than last year's, helped by a mild spring and steady rain.",
            "The chair of the local growers' cooperative, {person}, said the fruit was also "
            "sweeter and that buyers abroad had already placed orders.",
            "The cooperative expects sales worth {money}, mostly to supermarkets and cider makers.",
            "A shortage of pickers is the main worry, with farms competing for seasonal workers "
            "as the harvest peaks.",
            "Agronomist {expert} urged caution, saying a late frost or a dry spell in {month} "
            "could still cut yields.",
            "Smaller farms are asking for cheaper loans to buy cold storage and hold their "
            "apples until prices improve.",
            "A demonstration day in {month} will show new picking platforms to growers with "
            "orchards on steep ground.",
        ),
        ("apple harvest", "mild spring", "{city}", "growers", "{person}"),
    ),
    _Topic(
        "{city} film festival receives a record number of entries",
        (
            "The {city} film festival has received {big} entries for short and feature films, "
            "a record since its first edition, organisers said on {weekday}.",
            "Artistic director {person} said the selection panel had watched every film over "
            "three months and that half of the entries came from first-time directors.",
            "The festival's budget of {money} comes from private sponsors and a city arts fund.",
            "Screenings will be free and will take place in old cinemas, arts centres and on a "
            "large screen in the main square.",
            "Critic {expert} said the increase showed that regional filmmaking had matured and "
            "found audiences beyond the big cities.",
            "Independent producers complained that the cash prizes were the same as five years "
            "ago.",
            "The full programme will be announced in {month}, along with the jury and workshops "
            "for young filmmakers.",
        ),
        ("film festival", "feature films", "{city}", "entries", "{person}"),
    ),
)

_LOCALES: dict[Language, _Locale] = {
    "pt": _Locale(
        language="pt",
        html_lang="pt-BR",
        sites=(
            ("Diário do Litoral", "diariodolitoral.com.br"),
            ("Gazeta do Planalto", "gazetadoplanalto.com.br"),
            ("Jornal da Serra", "jornaldaserra.com.br"),
        ),
        sections=("Início", "Política", "Economia", "Cidades", "Esportes", "Cultura", "Opinião"),
        cities=(
            "Recife",
            "Salvador",
            "Curitiba",
            "Belém",
            "Porto Alegre",
            "Fortaleza",
            "Manaus",
            "Goiânia",
            "Florianópolis",
            "Natal",
            "Maceió",
            "Campinas",
            "Londrina",
            "Juiz de Fora",
        ),
        people=(
            "Ana Ribeiro",
            "Beatriz Nogueira",
            "Carla Teixeira",
            "Daniela Rocha",
            "Fernanda Gomes",
            "Juliana Martins",
            "Carlos Almeida",
            "Eduardo Barbosa",
            "Fábio Cardoso",
            "Gustavo Ferreira",
            "Henrique Lima",
            "Marcelo Pereira",
            "Ricardo Santos",
            "Sérgio Oliveira",
        ),
        weekdays=("segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira"),
        months=("março", "abril", "maio", "junho", "agosto", "setembro", "outubro"),
        money="R$ {amount} milhões",
        byline="Por {author}",
        most_read="Mais lidas",
        newsletter="Receba as principais notícias do dia no seu e-mail, de segunda a sábado.",
        subscribe="Assinar a newsletter",
        rights="© 2024 {site}. Todos os direitos reservados.",
        footer_links=("Expediente", "Política de privacidade", "Fale conosco"),
        more='Leia a <a href="/cidades/{slug}">cobertura completa</a> sobre a cidade.',
        caption="Vista do centro de {city}; foto de arquivo.",
        tz="-03:00",
        topics=_PT_TOPICS,
    ),
    "en": _Locale(
        language="en",
        html_lang="en-GB",
        sites=(
            ("The Northern Courier", "northerncourier.co.uk"),
            ("Valley Gazette", "valleygazette.co.uk"),
            ("Coastal Herald", "coastalherald.co.uk"),
        ),
        sections=("Home", "Politics", "Business", "Local", "Sport", "Culture", "Opinion"),
        cities=(
            "Leeds",
            "Bristol",
            "Glasgow",
            "Cardiff",
            "Sheffield",
            "Norwich",
            "Plymouth",
            "Dundee",
            "Exeter",
            "York",
            "Swansea",
            "Aberdeen",
            "Newcastle",
            "Derby",
        ),
        people=(
            "Alice Morgan",
            "Bethan Hughes",
            "Claire Dawson",
            "Fiona Campbell",
            "Hannah Price",
            "Laura Bennett",
            "Andrew Walsh",
            "David Kerr",
            "Gareth Evans",
            "James Holloway",
            "Martin Shaw",
            "Peter Lowe",
            "Richard Boyle",
            "Simon Fletcher",
        ),
        weekdays=("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
        months=("March", "April", "May", "June", "August", "September", "October"),
        money="£{amount} million",
        byline="By {author}",
        most_read="Most read",
        newsletter="Get the day's top stories in your inbox every weekday morning.",
        subscribe="Sign up to the newsletter",
        rights="© 2024 {site}. All rights reserved.",
        footer_links=("About us", "Privacy policy", "Contact"),
        more='Read our <a href="/local/{slug}">full coverage</a> of the city.',
        caption="A view of central {city}; file photo.",
        tz="+00:00",
        topics=_EN_TOPICS,
    ),
}


def _slug(text: str) -> str:
    """ASCII, lower case, words joined by hyphens: ``Juiz de Fora`` -> ``juiz-de-fora``."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    kept = "".join(ch if ch.isalnum() else " " for ch in folded.lower())
    return "-".join(kept.split())


def _marker(seed: int, index: int) -> str:
    return f"{MARKER_PREFIX}{seed}-{index:04d}"


def _article_id(seed: int, index: int) -> str:
    return f"case-{index:04d}" if seed == 0 else f"case-{seed}-{index:04d}"


def _page(
    *,
    locale: _Locale,
    site: tuple[str, str],
    url: str,
    title: str,
    author: str,
    published: str,
    display_date: str,
    paragraphs: Sequence[str],
    description: str,
    figure: str | None,
    most_read: Sequence[tuple[str, str]],
) -> str:
    esc = html_lib.escape
    name, domain = site
    nav = "\n".join(
        f'        <li><a href="/{_slug(section)}">{esc(section)}</a></li>'
        for section in locale.sections
    )
    body = [f"      <p>{paragraph}</p>" for paragraph in paragraphs]
    if figure is not None:
        body.insert(min(2, len(body)), figure)
    teasers = "\n".join(
        f'        <li><a href="{esc(href)}">{esc(text)}</a></li>' for text, href in most_read
    )
    footer = " | ".join(f'<a href="/{_slug(link)}">{esc(link)}</a>' for link in locale.footer_links)
    author_href = f"/{_slug(locale.byline.split()[0])}/{_slug(author)}"
    byline = esc(locale.byline.format(author="\0")).replace(
        "\0", f'<a rel="author" href="{author_href}">{esc(author)}</a>'
    )
    return f"""<!DOCTYPE html>
<html lang="{locale.html_lang}">
<head>
  <meta charset="utf-8">
  <title>{esc(title)} | {esc(name)}</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="description" content="{esc(description)}">
  <meta property="og:type" content="article">
  <meta property="og:site_name" content="{esc(name)}">
  <meta property="og:title" content="{esc(title)}">
  <meta property="og:url" content="{esc(url)}">
  <meta name="author" content="{esc(author)}">
  <meta property="article:published_time" content="{published}">
  <link rel="canonical" href="{esc(url)}">
  <link rel="stylesheet" href="https://static.{domain}/css/site.css">
</head>
<body>
  <header class="site-header">
    <a class="logo" href="/">{esc(name)}</a>
    <nav class="main-nav">
      <ul>
{nav}
      </ul>
    </nav>
  </header>
  <main>
    <article class="story">
      <h1>{esc(title)}</h1>
      <p class="byline">{byline}</p>
      <time datetime="{published}">{esc(display_date)}</time>
{chr(10).join(body)}
    </article>
    <aside class="most-read">
      <h2>{esc(locale.most_read)}</h2>
      <ol>
{teasers}
      </ol>
    </aside>
    <div class="newsletter">
      <p>{esc(locale.newsletter)}</p>
      <a class="button" href="/newsletter">{esc(locale.subscribe)}</a>
    </div>
  </main>
  <footer class="site-footer">
    <p>{esc(locale.rights.format(site=name))}</p>
    <p>{footer}</p>
  </footer>
</body>
</html>
"""


def _with_debris(text: str, tags: Sequence[str]) -> str:
    """``text`` with ``DEBRIS`` after the third letter of its first word of six letters or
    more that it writes once and no tag phrase contains (every story paragraph has one)."""
    cores = (w.strip(".,;:'\"") for w in text.split())
    word = next(
        w
        for w in cores
        if len(w) >= 6 and w.isalpha() and text.count(w) == 1 and not any(w in t for t in tags)
    )
    return text.replace(word, word[:3] + DEBRIS + word[3:], 1)


def _make_article(index: int, seed: int) -> CaseArticle:
    scenario = SCENARIOS[index % len(SCENARIOS)]
    # Languages alternate in runs of len(SCENARIOS), so every scenario meets every language.
    language = LANGUAGES[(index // len(SCENARIOS)) % len(LANGUAGES)]
    locale = _LOCALES[language]
    rng = random.Random(f"stream-cases:{seed}:{index}")
    topic_no = (index // (len(SCENARIOS) * len(LANGUAGES)) + index + seed) % len(locale.topics)
    topic = locale.topics[topic_no]
    city = rng.choice(locale.cities)
    person, expert, author = rng.sample(locale.people, 3)
    marker = _marker(seed, index)
    slots = {
        "city": city,
        "person": person,
        "expert": expert,
        "weekday": rng.choice(locale.weekdays),
        "month": rng.choice(locale.months),
        "count": str(rng.randint(12, 48)),
        "big": str(rng.randint(310, 940)),
        "money": locale.money.format(amount=rng.randint(12, 480)),
    }
    esc_slots = {key: html_lib.escape(value) for key, value in slots.items()}
    headline = topic.title.format(**slots)
    title = f"{headline} ({marker})"
    # The lede keeps its place; 3-6 of the other paragraphs follow in their order.
    rest = sorted(rng.sample(range(1, len(topic.paragraphs)), rng.randint(3, 6)))
    texts = [topic.paragraphs[0].format(**slots)] + [
        topic.paragraphs[n].format(**slots) for n in rest
    ]
    texts[1] = _with_debris(texts[1], [tag.format(**slots) for tag in topic.tags])
    paragraphs = [html_lib.escape(text) for text in texts]
    paragraphs[0] = f"{html_lib.escape(city.upper())} ({marker}) – {paragraphs[0]}"
    if index % 2 == 0:
        paragraphs[-1] += " " + locale.more.format(slug=_slug(city))
    site = locale.sites[rng.randrange(len(locale.sites))]
    domain = site[1]
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    hour, minute = rng.randint(6, 21), rng.randint(0, 59)
    published = f"2024-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:00{locale.tz}"
    section = _slug(locale.sections[3])
    url = (
        f"https://www.{domain}/{section}/2024/{month:02d}/{day:02d}/"
        f"{_slug(headline)}-{marker.lower()}"
    )
    figure = None
    if index % 3 == 1:
        caption = html_lib.escape(locale.caption.format(city=city))
        figure = (
            '      <figure class="lead-image">\n'
            f'        <img src="https://static.{domain}/img/{_slug(city)}-{index}.jpg" '
            f'alt="{esc_slots["city"]}" width="1200" height="675">\n'
            f"        <figcaption>{caption}</figcaption>\n"
            "      </figure>"
        )
    others = [t for n, t in enumerate(locale.topics) if n != topic_no]
    most_read = []
    for other in rng.sample(others, 3):
        teaser = other.title.format(**{**slots, "city": rng.choice(locale.cities)})
        most_read.append((teaser, f"/{section}/2024/{_slug(teaser)}-{rng.randint(1000, 9999)}"))
    page = _page(
        locale=locale,
        site=site,
        url=url,
        title=title,
        author=author,
        published=published,
        display_date=f"{day:02d}/{month:02d}/2024 {hour:02d}:{minute:02d}",
        paragraphs=paragraphs,
        description=texts[0],
        figure=figure,
        most_read=most_read,
    )
    return CaseArticle(
        index=index,
        article_id=_article_id(seed, index),
        url=url,
        html=page.encode("utf-8"),
        language=language,
        scenario=scenario,
        marker=marker,
        title=title,
        sentiment=SENTIMENTS[(index // len(SCENARIOS)) % len(SENTIMENTS)],
        tag_phrases=tuple(tag.format(**slots) for tag in topic.tags),
    )


def make_articles(n: int, *, seed: int = 0) -> list[CaseArticle]:
    """``n`` unique articles; scenarios cycle in ``SCENARIOS`` order, languages alternate
    every ``len(SCENARIOS)`` cases. The same ``(n, seed)`` always gives the same pages."""
    if n < 0 or seed < 0:
        raise ValueError("n and seed must not be negative")
    return [_make_article(index, seed) for index in range(n)]


# -- the answers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseAnswers:
    """What the scripted models answer for one case, and what a valid answer assembles."""

    candidates: CandidateSet
    article: AssembledArticle  # what the harness assembles on the case scenario's path
    enrichment_input: EnrichmentInput  # with a placeholder entity; blocks are what matter
    hygiene_primary: dict[str, Any]  # the primary's valid answer: repair, last paragraph out
    hygiene_fallback: dict[str, Any]  # the fallback's valid answer: repair, every paragraph
    hygiene_invented_block: dict[str, Any]
    enrichment_valid: dict[str, Any]
    enrichment_unknown_evidence: dict[str, Any]
    enrichment_too_few_tags: dict[str, Any]
    hygiene_data: str  # the data section the hygiene request should carry
    enrichment_data: str  # the data section the enrichment request should carry


def _data_section(text: str) -> str | None:
    """What ``render_messages`` put between the data tags (each on a line of its own: the
    prompts name the tags in their prose too), or None."""
    opening = f"\n{DATA_OPEN}\n"
    start = text.find(opening)
    if start < 0:
        return None
    start += len(opening)
    end = text.find(f"\n{DATA_CLOSE}", start)  # the data is fenced: no closing tag inside
    return text[start:end] if end >= 0 else None


def _tags(case: CaseArticle, inp: EnrichmentInput) -> list[dict[str, Any]]:
    """Up to five of the case's tag phrases, each citing every block that writes it."""
    tags: list[dict[str, Any]] = []
    for phrase in case.tag_phrases:
        cited = [block.id for block in inp.blocks if phrase in block.text]
        if cited:
            tags.append({"tag": phrase, "evidence_block_ids": cited[:5]})
    if len(tags) < 3:
        raise RuntimeError(f"{case.article_id}: only {len(tags)} tag phrases survived hygiene")
    return tags[:5]


def _repairs(candidates: CandidateSet, kept: list[str]) -> list[dict[str, Any]]:
    """The ``unicode`` repair of the page's debris (the word that carries it, without it), when
    the page has debris in a block the answer keeps: a real page has none, and an enlarged
    page's selection may leave the story's block out."""
    blocks = [b for b in candidates.blocks if DEBRIS in b.text and b.id in kept]
    if not blocks:
        return []
    (block,) = blocks
    word = next(w for w in block.text.split() if DEBRIS in w)
    return [
        {
            "target_id": block.id,
            "original": word,
            "replacement": word.replace(DEBRIS, ""),
            "category": "unicode",
            "justification": "a zero-width space inside a word",
        }
    ]


def _model_answers(candidates: CandidateSet) -> tuple[dict[str, Any], dict[str, Any]]:
    """The primary's and the fallback's valid answers (module docstring)."""
    base = deterministic_proposal(candidates).model_dump(mode="json")
    fallback = dict(base, repairs=_repairs(candidates, base["kept_block_ids"]))
    paragraphs = {b.id for b in candidates.blocks if b.type == "paragraph"}
    last = [i for i in base["kept_block_ids"] if i in paragraphs][-1]
    kept = [i for i in base["kept_block_ids"] if i != last]
    links = {link.id: link.block_id for link in candidates.links}
    primary = dict(
        base,
        kept_block_ids=kept,
        kept_link_ids=[i for i in base["kept_link_ids"] if links[i] != last],
        repairs=_repairs(candidates, kept),
    )
    return primary, fallback


def _assemble(case: CaseArticle, candidates: CandidateSet, path: HygienePath) -> AssembledArticle:
    primary, fallback = _model_answers(candidates)
    answers = {"primary": primary, "fallback": fallback}
    answer = answers.get(path) or deterministic_proposal(candidates).model_dump(mode="json")
    result = run_hygiene_harness(
        candidates, answer, source_html=case.html, path=path, source=case.article_id
    )
    if result.article is None:
        raise RuntimeError(f"{case.article_id}: the {path} answer failed the harness")
    if path != "deterministic" and len(result.article.repairs.applied) != len(answer["repairs"]):
        raise RuntimeError(f"{case.article_id}: the debris repair was not accepted")
    return result.article


@functools.cache
def assembled(case: CaseArticle, path: HygienePath) -> AssembledArticle:
    """What the harness assembles for ``case`` on ``path`` from that path's answer."""
    return _assemble(case, case.answers.candidates, path)


def _build_answers(case: CaseArticle) -> CaseAnswers:
    candidates = build_candidates(case.html, url=case.url)
    primary, fallback = _model_answers(candidates)
    article = _assemble(case, candidates, _PATHS[case.scenario])
    invented = f"b{len(candidates.blocks) + 900}"
    inp = build_enrichment_input(article, _ENTITY)
    # Tags cite only blocks every path keeps (the primary's article has the fewest), so one
    # enrichment answer fits whichever path ran.
    tags = _tags(case, build_enrichment_input(_assemble(case, candidates, "primary"), _ENTITY))
    enrichment_valid = {"sentiment": case.sentiment, "tags": tags}
    unknown_evidence = [dict(tags[0], evidence_block_ids=[f"p{len(inp.blocks) + 90}"])]
    user = enrichment_messages(load_prompt(ENRICHMENT), inp)[-1]["content"]
    return CaseAnswers(
        candidates=candidates,
        article=article,
        enrichment_input=inp,
        hygiene_primary=primary,
        hygiene_fallback=fallback,
        hygiene_invented_block=dict(primary, kept_block_ids=[*primary["kept_block_ids"], invented]),
        enrichment_valid=enrichment_valid,
        enrichment_unknown_evidence=dict(enrichment_valid, tags=unknown_evidence + tags[1:]),
        enrichment_too_few_tags=dict(enrichment_valid, tags=tags[:2]),
        hygiene_data=render_hygiene_context(candidates),
        enrichment_data=_data_section(user) or "",
    )


# -- what the runtime should make of each case -------------------------------------------------

Attempt = tuple[Role, str | None]  # (role, reason); reason None: the answer held


@dataclass(frozen=True)
class Expected:
    """What the runtime should do with one case: the attempts as ``(role, reason)`` pairs
    (``AttemptRecord.role``/``.reason``), the hygiene path, the Markdown every path assembles,
    and the enrichment (sentiment and tags, or None for a terminal failure)."""

    hygiene_path: HygienePath
    hygiene_attempts: tuple[Attempt, ...]
    paragraphs: tuple[str, ...]  # read from the page, with the path's edits
    markdown: str
    enrichment_ok: bool
    enrichment_attempts: tuple[Attempt, ...]
    sentiment: str | None
    tags: tuple[str, ...] | None


_PATHS: dict[Scenario, HygienePath] = {
    "primary": "primary",
    "enrich_terminal": "primary",
    "fallback": "fallback",
    "deterministic": "deterministic",
}


def story_paragraphs(html: bytes) -> list[str]:
    """The story's paragraphs as a reader sees the page (selectolax; byline left out), each
    with its white space collapsed."""
    tree = LexborHTMLParser(html.decode("utf-8"))
    return [
        " ".join(node.text().split())
        for node in tree.css("article.story > p")
        if "byline" not in (node.attributes.get("class") or "")
    ]


def expected_paragraphs(case: CaseArticle) -> tuple[str, ...]:
    """The article's paragraphs on the case scenario's path, from the page alone: the models
    remove the debris, and the primary leaves the last paragraph out."""
    paragraphs = story_paragraphs(case.html)
    path = _PATHS[case.scenario]
    if path != "deterministic":
        paragraphs = [p.replace(DEBRIS, "") for p in paragraphs]
    if path == "primary":
        paragraphs = paragraphs[:-1]
    return tuple(paragraphs)


def expected(case: CaseArticle) -> Expected:
    answers = case.answers
    primary_ok: tuple[Attempt, ...] = (("runtime_primary", None),)
    hygiene: dict[Scenario, tuple[HygienePath, tuple[Attempt, ...]]] = {
        "primary": ("primary", primary_ok),
        "enrich_terminal": ("primary", primary_ok),
        "fallback": (
            "fallback",
            (("runtime_primary", REASON_UNKNOWN_BLOCK), ("runtime_fallback", None)),
        ),
        "deterministic": (
            "deterministic",
            (
                ("runtime_primary", REASON_UNKNOWN_BLOCK),
                ("runtime_fallback", REASON_NOT_JSON),
                ("deterministic", None),
            ),
        ),
    }
    path, attempts = hygiene[case.scenario]
    if case.scenario == "enrich_terminal":
        return Expected(
            hygiene_path=path,
            hygiene_attempts=attempts,
            paragraphs=expected_paragraphs(case),
            markdown=answers.article.markdown,
            enrichment_ok=False,
            enrichment_attempts=(
                ("runtime_primary", REASON_UNKNOWN_EVIDENCE),
                ("runtime_fallback", REASON_TOO_FEW_TAGS),
            ),
            sentiment=None,
            tags=None,
        )
    return Expected(
        hygiene_path=path,
        hygiene_attempts=attempts,
        paragraphs=expected_paragraphs(case),
        markdown=answers.article.markdown,
        enrichment_ok=True,
        enrichment_attempts=primary_ok,
        sentiment=case.sentiment,
        tags=tuple(tag["tag"] for tag in answers.enrichment_valid["tags"]),
    )


# -- the responder -----------------------------------------------------------------------------


def _user_text(body: dict[str, Any]) -> str:
    """The user messages' text (the article data lives there, never in the system prompt)."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return ""
    texts = [
        m["content"]
        for m in messages
        if isinstance(m, dict) and m.get("role") == "user" and isinstance(m.get("content"), str)
    ]
    return "\n".join(texts)


def call_kind(body: dict[str, Any]) -> CallKind | None:
    """Which logical call a chat request is: from the response format's schema name when the
    provider sends one, else from the ``prompt <name> <version>`` line the renderer writes."""
    response_format = body.get("response_format")
    if isinstance(response_format, dict):
        schema = response_format.get("json_schema")
        named = schema.get("name") if isinstance(schema, dict) else None
        for kind in (HYGIENE, ENRICHMENT):
            if named == kind:
                return kind
    text = _user_text(body)
    found = [kind for kind in (HYGIENE, ENRICHMENT) if f"prompt {kind} " in text]
    return found[0] if len(found) == 1 else None


def find_markers(text: str) -> set[str]:
    """Every ``ZK<digits>-<digits>`` token in ``text``."""
    found: set[str] = set()
    start = text.find(MARKER_PREFIX)
    while start >= 0:
        end = start + len(MARKER_PREFIX)
        while end < len(text) and text[end] in _MARKER_CHARS:
            end += 1
        token = text[start:end].rstrip("-")
        if len(token) > len(MARKER_PREFIX):
            found.add(token)
        start = text.find(MARKER_PREFIX, end)
    return found


class CaseResponder:
    """``(model, body) -> Action | None`` for ``ScriptedOpenAIServer.respond_with``.

    Answers are precomputed here (in the caller's thread), so the server loop only looks
    them up. Requests it cannot place are answered None (the server's queue, usually a 500)
    and listed in ``unmatched``; a request whose data section differs from what the case's
    own candidates render is still answered and listed in ``mismatched``.
    """

    def __init__(
        self, cases: Sequence[CaseArticle], primary_model: str, fallback_model: str
    ) -> None:
        if primary_model == fallback_model:
            raise ValueError("the primary and fallback models must differ")
        self.primary_model = primary_model
        self.fallback_model = fallback_model
        self.cases = {case.marker: case for case in cases}
        if len(self.cases) != len(cases):
            raise ValueError("two cases share a marker")
        self._answers = {marker: case.answers for marker, case in self.cases.items()}
        self._lock = threading.Lock()
        self._unmatched: list[str] = []
        self._mismatched: list[tuple[str, CallKind]] = []

    @property
    def unmatched(self) -> list[str]:
        """Why each unplaced request was not answered (model, kind, markers found)."""
        with self._lock:
            return list(self._unmatched)

    @property
    def mismatched(self) -> list[tuple[str, CallKind]]:
        """``(article_id, call)`` of requests whose article data was not the expected one."""
        with self._lock:
            return list(self._mismatched)

    def _role(self, model: str) -> Role | None:
        if model == self.primary_model:
            return "runtime_primary"
        if model == self.fallback_model:
            return "runtime_fallback"
        return None

    def __call__(self, model: str, body: dict[str, Any]) -> Action | None:
        kind = call_kind(body)
        text = _user_text(body)
        markers = find_markers(_data_section(text) or "") & self.cases.keys()
        role = self._role(model)
        if kind is None or role is None or len(markers) != 1:
            with self._lock:
                self._unmatched.append(f"model={model} call={kind} markers={sorted(markers)}")
            return None
        (marker,) = markers
        case, answers = self.cases[marker], self._answers[marker]
        want = answers.hygiene_data if kind == HYGIENE else answers.enrichment_data
        if _data_section(text) != want:
            with self._lock:
                self._mismatched.append((case.article_id, kind))
        if kind == HYGIENE:
            return Reply(_hygiene_answer(case.scenario, role, answers))
        return Reply(_enrichment_answer(case.scenario, role, answers))


def _hygiene_answer(scenario: Scenario, role: Role, answers: CaseAnswers) -> dict[str, Any] | str:
    if scenario in ("primary", "enrich_terminal"):
        return answers.hygiene_primary
    if role == "runtime_primary":
        return answers.hygiene_invented_block
    return answers.hygiene_fallback if scenario == "fallback" else NOT_JSON


def _enrichment_answer(scenario: Scenario, role: Role, answers: CaseAnswers) -> dict[str, Any]:
    if scenario != "enrich_terminal":
        return answers.enrichment_valid
    if role == "runtime_primary":
        return answers.enrichment_unknown_evidence
    return answers.enrichment_too_few_tags


def responder(
    cases: Sequence[CaseArticle], primary_model: str, fallback_model: str
) -> CaseResponder:
    """The responder for ``cases``; builds every case's answers now, not on the server loop."""
    return CaseResponder(cases, primary_model, fallback_model)
