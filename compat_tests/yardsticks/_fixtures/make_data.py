"""Writes the yardsticks' small synthetic data files (stand-ins for downloads; run once, output committed).

- data/wikitext-2/{train,valid,test}.txt: word_language_model's corpus layout, sentences from a tiny
  grammar (so that the model has something to learn), about 4000 / 800 / 800 words.
- names.txt: makemore's input, one made-up lower-case name per line (600 names).
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


def main():
    rng = random.Random(0)
    wiki = os.path.join(HERE, "data", "wikitext-2")
    os.makedirs(wiki, exist_ok=True)
    for name, words in (("train.txt", 4000), ("valid.txt", 800), ("test.txt", 800)):
        with open(os.path.join(wiki, name), "w", encoding="utf-8") as f:
            f.write(_corpus(rng, words))
    with open(os.path.join(HERE, "names.txt"), "w", encoding="utf-8") as f:
        f.write(_names(rng, 600))


if __name__ == "__main__":
    main()
