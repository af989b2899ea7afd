"""Document records the facts tests share: a small dated graph with known structure.

- ``Apple Inc`` has one fact per year 2016-2025 about products and earnings (newest first
  they fill any small limit), plus one old fact (2012) about buying a headphone maker:
  a recency cut loses it, a query about headphones must find it.
- ``Apple Inc`` and ``Microsoft Corp`` have facts between them in both directions; both
  have facts with the topic ``Inflation``; ``Microsoft Corp`` has one with the topic
  ``Artificial intelligence``.
- Boundary dates: facts dated exactly 2020-01-01 and 2020-12-31.
"""

from __future__ import annotations

import json

import mcp_types as types

APPLE = {"name": "Apple Inc", "type": "Company",
         "definition": "American technology company that designs the iPhone and Mac computers", "aliases": ["Apple"]}
MICROSOFT = {"name": "Microsoft Corp", "type": "Company",
             "definition": "American software company that makes Windows and the Azure cloud", "aliases": ["Microsoft"]}
BEATS = {"name": "Beats Electronics", "type": "Company",
         "definition": "maker of headphones and speakers founded by Dr. Dre", "aliases": ["Beats"]}
INFLATION = {"name": "Inflation", "definition": "a general rise in consumer prices over time", "aliases": []}
AI = {"name": "Artificial intelligence", "definition": "computer systems that perform tasks needing human intelligence",
      "aliases": ["AI"]}

YEARLY = [
    ("launched the iPhone 7", "Apple launched the iPhone 7 with a dual camera."),
    ("reported record revenue", "Apple reported record quarterly revenue driven by services."),
    ("released the Apple Watch Series 4", "Apple released a new smartwatch with a larger display."),
    ("opened a store in Milan", "Apple opened a flagship retail store in Milan."),
    ("announced the M1 chip", "Apple announced its own M1 processor for Mac computers."),
    ("expanded services", "Apple expanded its subscription services to more countries."),
    ("unveiled the Vision Pro", "Apple unveiled a mixed reality headset called Vision Pro."),
    ("raised its dividend", "Apple raised its quarterly dividend for shareholders."),
    ("launched Apple Intelligence", "Apple introduced generative features on the iPhone."),
    ("reported services growth", "Apple said revenue from its services business grew strongly."),
]


def record(name: str, date: str, entities: list[dict], topics: list[dict], facts: list[tuple], chunk: str = "") -> dict:
    return {
        "name": name, "date": date, "source": f"https://example.com/{name.lower().replace(' ', '-')}",
        "chunks": [chunk or " ".join(f[3] for f in facts) or name],
        "entities": entities, "topics": topics,
        "facts": [{"subject": s, "relationship": r, "object": o, "sentence": sent, "chunk": 0}
                  for s, r, o, sent in facts],
    }


def apple_year(i: int) -> dict:
    rel, sentence = YEARLY[i]
    product = {"name": f"Apple product {2016 + i}", "type": "Product",
               "definition": f"a product Apple released in {2016 + i}: {rel}"}
    return record(f"Apple news {2016 + i}", f"{2016 + i}-06-01", [APPLE, product], [],
                  [("Apple Inc", rel, product["name"], sentence)])


def records() -> list[dict]:
    out = [apple_year(i) for i in range(len(YEARLY))]
    out.append(record("Apple buys Beats", "2012-05-28", [APPLE, BEATS], [], [
        ("Apple Inc", "acquired", "Beats Electronics",
         "Apple bought Beats Electronics, the headphone maker, to enter the premium audio market.")]))
    out.append(record("Patent truce", "2020-01-01", [APPLE, MICROSOFT], [], [
        ("Microsoft Corp", "settled with", "Apple Inc", "Microsoft settled a patent dispute with Apple.")]))
    out.append(record("Office partnership", "2020-12-31", [APPLE, MICROSOFT], [], [
        ("Apple Inc", "licensed software from", "Microsoft Corp", "Apple licensed Microsoft Office for the iPad.")]))
    out.append(record("Prices and tech", "2022-07-15", [APPLE, MICROSOFT], [INFLATION, AI], [
        ("Inflation", "raised costs for", "Apple Inc", "Inflation raised component costs for Apple."),
        ("Microsoft Corp", "passed on", "Inflation", "Microsoft passed inflation on to cloud customers."),
        ("Microsoft Corp", "invested in", "Artificial intelligence", "Microsoft invested billions in AI research."),
    ]))
    return out


# -- a fake extraction model (stands in for a hosted LLM: the only thing these tests fake) ------------

DOCUMENT = ("Apple Inc acquired Beats Electronics for three billion dollars in May 2014, its largest purchase so far "
            "and a clear bet on audio. The deal brings the headphone maker and its founders into the company, and analysts expect the "
            "brand to keep its own name and stores while the engineering teams move to Cupertino over the year.\n\n"
            "Beats Electronics makes headphones and speakers and runs a subscription service. Tim Cook said the deal "
            "helps Apple in music streaming, where it competes with services that grew quickly in the last two "
            "years, and that the Beats team would help Apple build a better streaming offer for its customers.")
STEP1 = {"entities": [
    {"name": "Apple Inc", "type": "Company", "definition": "American technology company that makes the iPhone",
     "aliases": ["Apple"]},
    {"name": "Beats Electronics", "type": "Company", "definition": "maker of headphones", "aliases": ["Beats"]},
    {"name": "Tim Cook", "type": "Person", "definition": "chief executive of Apple"},
    {"name": "Broken", "definition": "an entity without a type"},
], "topics": [{"name": "Music streaming", "definition": "listening to music over the internet"}]}
STEP2 = {"facts": [
    {"subject": "Apple Inc", "relationship": "acquired", "object": "Beats Electronics",
     "sentence": "Apple Inc acquired Beats Electronics for three billion dollars.", "date_context": "May 2014",
     "chunk": 0},
    {"subject": "Tim Cook", "relationship": "said the deal helps", "object": "Music streaming",
     "sentence": "Tim Cook said the Beats deal helps Apple in music streaming.", "chunk": 1},
    {"subject": "Samsung", "relationship": "competes with", "object": "Apple Inc",
     "sentence": "Samsung competes with Apple.", "date_context": "2014", "chunk": 0},
]}


def fake_model_answer(prompt: str) -> str:
    """What the fake hosted model says: step 1 in a code fence with prose around it, step 2 bare; asked whether
    two descriptions name the same thing, yes for Beats, no otherwise."""
    if "SAME THING?" in prompt:
        return json.dumps({"same": prompt.count("Beats") >= 2})
    if "STEP 1 of 2" in prompt:
        assert "[chunk 0]" in prompt and "[chunk 1]" in prompt
        return "Here you go:\n```json\n" + json.dumps(STEP1) + "\n```\nDone."
    if "STEP 2 of 2" in prompt:
        assert "- Apple Inc" in prompt and "- Music streaming" in prompt and "- Broken" not in prompt
        return json.dumps(STEP2)
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")



async def sampling_callback(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    prompt = params.messages[0].content.text
    return types.CreateMessageResult(role="assistant", model="fake-model",
                                     content=types.TextContent(type="text", text=fake_model_answer(prompt)))


