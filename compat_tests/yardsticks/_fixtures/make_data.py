"""Writes the yardsticks' small synthetic data files (stand-ins for downloads; run once, output committed).

- data/wikitext-2/{train,valid,test}.txt: word_language_model's corpus layout, sentences from a tiny
  grammar (so that the model has something to learn), about 4000 / 800 / 800 words.
- names.txt: makemore's input, one made-up lower-case name per line (600 names).
- data/d2l/timemachine.txt: d2l's *The Time Machine* stand-in, about 12500 characters (the real one has
  about 180000) of sentences from a tiny grammar (served by the `requests` stand-in to d2l's `download`).
- data/d2l/airfoil_self_noise.dat: d2l's airfoil stand-in, 603 rows (the real one has 1503) of 5
  tab-separated features and a target that depends on them linearly plus noise, in the NASA data's layout.
- data/nanogpt/input.txt: nanoGPT's shakespeare_char input stand-in, about 40000 characters (the real
  tinyshakespeare has 1.1M) of play dialogue from a tiny grammar: speaker names in capitals, a colon, one or
  two lines of verse (`_fixtures/nanogpt/prepare.py` encodes it the way nanoGPT's prepare.py does).
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

SUBJECTS = ["the cat", "a dog", "the old man", "my sister", "the river", "a small bird", "the teacher"]
VERBS = ["sees", "likes", "follows", "finds", "hears", "paints", "remembers"]
OBJECTS = ["the house", "a red ball", "the green hill", "the city", "a quiet song", "the boat", "the moon"]
ENDS = ["today .", "at night .", "in the morning .", "again .", "with care .", "."]


def _sentence(rng):
    return " ".join([rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(ENDS)])


def _corpus(rng, words):
    lines, n = [], 0
    while n < words:
        line = " ".join(_sentence(rng) for _ in range(rng.randint(1, 3)))
        lines.append(" " + line + " ")  # wikitext lines start and end with a space
        n += len(line.split())
    return "\n".join(lines) + "\n"


def _names(rng, n):
    onsets, vowels = "b c d f g h j k l m n p r s t v z".split(), "a e i o u y".split()
    codas = ["", "n", "l", "s"]
    out = set()
    while len(out) < n:
        syllables = [rng.choice(onsets) + rng.choice(vowels) for _ in range(rng.randint(1, 3))]
        out.add("".join(syllables) + rng.choice(codas))
    return "\n".join(sorted(out)) + "\n"


TM_SUBJECTS = ["the time traveller", "the psychologist", "the medical man", "filby", "the provincial mayor",
               "the very young man", "weena", "the machine", "the morlocks", "i"]
TM_VERBS = ["saw", "told", "held", "followed", "watched", "heard", "explained", "remembered", "found"]
TM_OBJECTS = ["the fourth dimension", "a little lamp", "the white sphinx", "the garden", "the dark wells",
              "the lever", "the future", "his hand", "a match", "the green porcelain"]
TM_ENDS = ["and then it was gone.", "in the twilight.", "with a queer smile.", "at the dinner.", ".",
           "as he had said!", "but nobody believed him."]


def _time_machine(rng, chars):
    out, n = [], 0
    while n < chars:
        line = " ".join([rng.choice(TM_SUBJECTS), rng.choice(TM_VERBS), rng.choice(TM_OBJECTS),
                         rng.choice(TM_ENDS)])
        line = line[0].upper() + line[1:]
        out.append(line)
        n += len(line) + 1
    return "The Time Machine, a yardstick stand-in\n\n" + "\n".join(out) + "\n"


def _airfoil(rng, rows):
    lines = []
    for _ in range(rows):
        x = [rng.choice([800, 1000, 1250, 1600, 2000, 2500, 3150, 4000]), rng.uniform(0, 22),
             rng.choice([0.0254, 0.0508, 0.1016, 0.1524, 0.2286, 0.3048]),
             rng.choice([31.7, 39.6, 55.5, 71.3]), rng.uniform(0.0004, 0.058)]
        y = (130.0 - 0.0012 * x[0] - 0.25 * x[1] - 20.0 * x[2] + 0.06 * x[3] - 120.0 * x[4]
             + rng.gauss(0.0, 2.4))
        lines.append("\t".join([f"{x[0]}", f"{x[1]:.1f}", f"{x[2]}", f"{x[3]}", f"{x[4]:.6f}", f"{y:.3f}"]))
    return "\n".join(lines) + "\n"


SPEAKERS = ["FIRST CITIZEN", "SECOND CITIZEN", "MENENIUS", "MARCIUS", "CORIOLANUS", "VOLUMNIA", "ALL",
            "SICINIUS", "BRUTUS", "COMINIUS"]
OPENINGS = ["Before we proceed any further", "Nay, but speak not maliciously", "What work's, my countrymen",
            "Hear me speak", "O, let me clip ye", "You are all resolved rather to die", "Come, come",
            "I tell you, friends", "Well, I'll hear it, sir", "Why, masters, my good friends"]
CLOSINGS = ["hear me speak.", "let us kill him!", "is this the way?", "we know't, we know't.",
            "and so farewell.", "what says the other troop?", "speak, speak.", "no more talking on't!",
            "let it be done: away, away!", "i' the name o' the people."]


def _play(rng, chars):
    out, n = [], 0
    while n < chars:
        lines = [f"{rng.choice(OPENINGS)}, {rng.choice(CLOSINGS)}" for _ in range(rng.randint(1, 2))]
        speech = rng.choice(SPEAKERS) + ":\n" + "\n".join(lines) + "\n\n"
        out.append(speech)
        n += len(speech)
    return "".join(out)


def main():
    rng = random.Random(0)
    wiki = os.path.join(HERE, "data", "wikitext-2")
    os.makedirs(wiki, exist_ok=True)
    for name, words in (("train.txt", 4000), ("valid.txt", 800), ("test.txt", 800)):
        with open(os.path.join(wiki, name), "w", encoding="utf-8") as f:
            f.write(_corpus(rng, words))
    with open(os.path.join(HERE, "names.txt"), "w", encoding="utf-8") as f:
        f.write(_names(rng, 600))
    d2l = os.path.join(HERE, "data", "d2l")
    os.makedirs(d2l, exist_ok=True)
    rng = random.Random(1)
    with open(os.path.join(d2l, "timemachine.txt"), "w", encoding="utf-8") as f:
        f.write(_time_machine(rng, 12500))
    with open(os.path.join(d2l, "airfoil_self_noise.dat"), "w", encoding="utf-8") as f:
        f.write(_airfoil(rng, 603))
    nanogpt = os.path.join(HERE, "data", "nanogpt")
    os.makedirs(nanogpt, exist_ok=True)
    with open(os.path.join(nanogpt, "input.txt"), "w", encoding="utf-8") as f:
        f.write(_play(random.Random(2), 40000))


if __name__ == "__main__":
    main()
