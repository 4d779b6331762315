"""A small German–English parallel corpus that the project generates itself.

It is the capstone's offline default: on a fresh machine without the Multi30k files, the pipeline
still runs end to end on real (if simple) sentences. Every sentence comes from a small grammar
with German gender, case and adjective endings and English articles, so a model has to learn
word order, agreement and vocabulary — but the language is far narrower than Multi30k's, and
its BLEU scores are not comparable with Multi30k's. Results on it are always labelled
``embedded (generated)``.
"""

from __future__ import annotations

import random

# (German singular, German plural, gender, English singular, English plural)
_AGENTS = [
    ("Mann", "Männer", "m", "man", "men"), ("Frau", "Frauen", "f", "woman", "women"),
    ("Kind", "Kinder", "n", "child", "children"), ("Junge", "Jungen", "m", "boy", "boys"),
    ("Mädchen", "Mädchen", "n", "girl", "girls"), ("Hund", "Hunde", "m", "dog", "dogs"),
    ("Katze", "Katzen", "f", "cat", "cats"), ("Arbeiter", "Arbeiter", "m", "worker", "workers"),
    ("Musiker", "Musiker", "m", "musician", "musicians"), ("Sportlerin", "Sportlerinnen", "f", "athlete", "athletes"),
    ("Pferd", "Pferde", "n", "horse", "horses"), ("Tänzerin", "Tänzerinnen", "f", "dancer", "dancers"),
]
_THINGS = [
    ("Ball", "Bälle", "m", "ball", "balls"), ("Buch", "Bücher", "n", "book", "books"),
    ("Tasche", "Taschen", "f", "bag", "bags"), ("Hut", "Hüte", "m", "hat", "hats"),
    ("Fahrrad", "Fahrräder", "n", "bicycle", "bicycles"), ("Gitarre", "Gitarren", "f", "guitar", "guitars"),
    ("Kamera", "Kameras", "f", "camera", "cameras"), ("Schild", "Schilder", "n", "sign", "signs"),
    ("Stock", "Stöcke", "m", "stick", "sticks"), ("Flasche", "Flaschen", "f", "bottle", "bottles"),
]
# (German dative phrase without article, gender, English phrase without article)
_PLACES = [
    ("Straße", "f", "street"), ("Strand", "m", "beach"), ("Park", "m", "park"), ("Wiese", "f", "meadow"),
    ("Haus", "n", "house"), ("Bühne", "f", "stage"), ("Brücke", "f", "bridge"), ("Markt", "m", "market"),
    ("Wasser", "n", "water"), ("Schnee", "m", "snow"),
]
# (German preposition with dative, English preposition)
_PREPOSITIONS = [("auf", "on"), ("in", "in"), ("neben", "next to"), ("vor", "in front of"), ("an", "at")]
_AGENT_ADJECTIVES = [("klein", "small"), ("groß", "tall"), ("alt", "old"), ("jung", "young"), ("stark", "strong")]
_THING_ADJECTIVES = [
    ("klein", "small"), ("groß", "big"), ("rot", "red"), ("blau", "blue"), ("alt", "old"),
    ("schwarz", "black"), ("weiß", "white"), ("grün", "green"), ("gelb", "yellow"), ("neu", "new"),
]
_PLACE_ADJECTIVES = [("klein", "small"), ("groß", "big"), ("alt", "old"), ("neu", "new"), ("leer", "empty")]
# (German 3rd singular, German 3rd plural, English 3rd singular, English plural)
_INTRANSITIVE = [
    ("läuft", "laufen", "runs", "run"), ("steht", "stehen", "stands", "stand"),
    ("sitzt", "sitzen", "sits", "sit"), ("spielt", "spielen", "plays", "play"),
    ("wartet", "warten", "waits", "wait"), ("springt", "springen", "jumps", "jump"),
    ("schläft", "schlafen", "sleeps", "sleep"),
]
_TRANSITIVE = [
    ("hält", "halten", "holds", "hold"), ("trägt", "tragen", "carries", "carry"),
    ("sucht", "suchen", "looks for", "look for"), ("wirft", "werfen", "throws", "throw"),
    ("findet", "finden", "finds", "find"), ("kauft", "kaufen", "buys", "buy"),
]
_NUMBERS = [("Zwei", "two"), ("Drei", "three"), ("Vier", "four"), ("Viele", "many")]

_INDEF = {("nom", "m"): "ein", ("nom", "f"): "eine", ("nom", "n"): "ein",
          ("acc", "m"): "einen", ("acc", "f"): "eine", ("acc", "n"): "ein"}
_INDEF_ENDING = {("nom", "m"): "er", ("nom", "f"): "e", ("nom", "n"): "es",
                 ("acc", "m"): "en", ("acc", "f"): "e", ("acc", "n"): "es"}


def _english_indefinite(phrase: str) -> str:
    return ("an " if phrase[0] in "aeiou" else "a ") + phrase


def _noun_phrase(rng: random.Random, noun, adjectives, case: str) -> tuple[str, str, bool]:
    """German and English noun phrase (indefinite singular or counted plural) and whether plural."""
    de_sg, de_pl, gender, en_sg, en_pl = noun
    adjective = rng.choice(adjectives) if rng.random() < 0.6 else None
    if rng.random() < 0.3:  # plural with a number word: strong adjective ending -e
        number_de, number_en = rng.choice(_NUMBERS)
        if case == "acc":
            number_de = number_de.lower()
        de = f"{number_de} {adjective[0] + 'e ' if adjective else ''}{de_pl}"
        en = f"{number_en} {adjective[1] + ' ' if adjective else ''}{en_pl}"
        return de, en, True
    article = _INDEF[(case, gender)]
    de = f"{article} {adjective[0] + _INDEF_ENDING[(case, gender)] + ' ' if adjective else ''}{de_sg}"
    en = _english_indefinite(f"{adjective[1] + ' ' if adjective else ''}{en_sg}")
    return de, en, False


def _place_phrase(rng: random.Random) -> tuple[str, str]:
    prep_de, prep_en = rng.choice(_PREPOSITIONS)
    place_de, gender, place_en = rng.choice(_PLACES)
    adjective = rng.choice(_PLACE_ADJECTIVES) if rng.random() < 0.3 else None
    article = "der" if gender == "f" else "dem"
    if article == "dem" and adjective is None and prep_de in ("in", "an"):
        head = {"in": "im", "an": "am"}[prep_de]  # German contracts "in dem" and "an dem"
    else:
        head = f"{prep_de} {article}"
    de = f"{head} {adjective[0] + 'en ' if adjective else ''}{place_de}"
    en = f"{prep_en} the {adjective[1] + ' ' if adjective else ''}{place_en}"
    return de, en


def _sentence(rng: random.Random) -> tuple[str, str]:
    subject_de, subject_en, plural = _noun_phrase(rng, rng.choice(_AGENTS), _AGENT_ADJECTIVES, "nom")
    if rng.random() < 0.5:
        verb = rng.choice(_INTRANSITIVE)
        object_de = object_en = ""
    else:
        verb = rng.choice(_TRANSITIVE)
        obj_de, obj_en, _ = _noun_phrase(rng, rng.choice(_THINGS), _THING_ADJECTIVES, "acc")
        object_de, object_en = " " + obj_de, " " + obj_en
    verb_de, verb_en = (verb[1], verb[3]) if plural else (verb[0], verb[2])
    place_de, place_en = _place_phrase(rng)
    de = f"{subject_de} {verb_de}{object_de} {place_de}."
    en = f"{subject_en} {verb_en}{object_en} {place_en}."
    return de[0].upper() + de[1:], en[0].upper() + en[1:]


SPLIT_SIZES = {"train": 20000, "val": 500, "test_2016_flickr": 500}


def embedded_corpus(seed: int = 2017) -> dict[str, tuple[list[str], list[str]]]:
    """``{split: (german, english)}`` with the splits of :data:`SPLIT_SIZES`, disjoint by sentence.

    The same seed always gives the same corpus. The test split keeps Multi30k's name so the
    pipeline treats both corpora alike.
    """
    rng = random.Random(seed)
    held_out: set[str] = set()
    splits: dict[str, tuple[list[str], list[str]]] = {}
    for split in ("test_2016_flickr", "val", "train"):  # held-out splits first, so train never repeats them
        german: list[str] = []
        english: list[str] = []
        while len(german) < SPLIT_SIZES[split]:
            de, en = _sentence(rng)
            if de in held_out:  # a held-out sentence appears once, and never in train
                continue
            if split != "train":
                held_out.add(de)
            german.append(de)
            english.append(en)
        splits[split] = (german, english)
    return {name: splits[name] for name in SPLIT_SIZES}
