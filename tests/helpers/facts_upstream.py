"""A small financial graph like the one the original facts server's docs query, and those docs' command strings.

The original (Vanna-Labs/vanna-financial-knowledge-graph, ``vanna_kg/mcp/server.py`` and
``vanna_kg/skills/kg-query/``) documents one MCP tool, ``kg_execute(command)``. Its docs print command
strings about Apple, Microsoft, Alphabet, the Federal Reserve and two of its regional banks, and the
topics Inflation, Interest Rates, Economic Conditions, Manufacturing and Employment; the records below
hold facts for every one of those commands (dated so the month windows of its examples have facts,
with a ``date_context`` that differs from the document date where the text says so). The command
strings are copied verbatim from the original's docs, in the order printed; the data is ours.
"""

from __future__ import annotations

APPLE = {"name": "Apple Inc", "type": "Company", "aliases": ["Apple"],
         "definition": "American technology company that designs the iPhone, iPad and Mac computers"}
MICROSOFT = {"name": "Microsoft Corp", "type": "Company", "aliases": ["Microsoft"],
             "definition": "American software company that makes Windows, Office and the Azure cloud"}
ALPHABET = {"name": "Alphabet Inc", "type": "Company", "aliases": ["Google"],
            "definition": "American technology holding company, parent of Google, the internet search and "
                          "advertising company"}
FED = {"name": "Federal Reserve", "type": "Organization", "aliases": ["Fed", "Federal Reserve System"],
       "definition": "the central banking system of the United States, which sets US monetary policy"}
FED_BOSTON = {"name": "Federal Reserve Bank of Boston", "type": "Organization", "aliases": ["Fed Boston", "Boston Fed"],
              "definition": "regional Reserve Bank of the US Federal Reserve serving New England"}
FED_ATLANTA = {"name": "Federal Reserve Bank of Atlanta", "type": "Organization",
               "aliases": ["Fed Atlanta", "Atlanta Fed"],
               "definition": "regional Reserve Bank of the US Federal Reserve serving the southeastern United States"}
SHAZAM = {"name": "Shazam", "type": "Company", "aliases": [],
          "definition": "British company that makes a music recognition app"}
INTEL = {"name": "Intel Corp", "type": "Company", "aliases": ["Intel"],
         "definition": "American semiconductor company that makes computer processors"}
ACTIVISION = {"name": "Activision Blizzard", "type": "Company", "aliases": [],
              "definition": "American video game publisher of Call of Duty and World of Warcraft"}
FITBIT = {"name": "Fitbit", "type": "Company", "aliases": [], "definition": "maker of fitness trackers and smartwatches"}

INFLATION = {"name": "Inflation", "aliases": [],
             "definition": "a general increase in prices across the economy and the fall in the purchasing value of "
                           "money"}
RATES = {"name": "Interest Rates", "aliases": [],
         "definition": "the cost of borrowing money, set by central banks and charged by lenders"}
CONDITIONS = {"name": "Economic Conditions", "aliases": [],
              "definition": "the overall state of the economy: growth, demand, output and employment"}
MANUFACTURING = {"name": "Manufacturing", "aliases": [], "definition": "industrial production of goods in factories"}
EMPLOYMENT = {"name": "Employment", "aliases": [],
              "definition": "jobs, hiring and the labour market, including the unemployment rate"}


def record(name: str, date: str, entities: list[dict], topics: list[dict], facts: list[tuple]) -> dict:
    """facts: (subject, relationship, object, sentence, date_context or None)."""
    return {
        "name": name, "date": date, "source": f"https://example.com/{name.lower().replace(' ', '-')}",
        "chunks": [" ".join(f[3] for f in facts)], "entities": entities, "topics": topics,
        "facts": [{"subject": s, "relationship": r, "object": o, "sentence": sent, "date_context": when, "chunk": 0}
                  for s, r, o, sent, when in facts],
    }


def records() -> list[dict]:
    return [
        record("Apple buys Shazam", "2018-09-24", [APPLE, SHAZAM], [], [
            ("Apple Inc", "acquired", "Shazam", "Apple completed its acquisition of Shazam, the music recognition app.",
             None)]),
        record("Apple buys Intel modem unit", "2019-07-25", [APPLE, INTEL], [], [
            ("Apple Inc", "acquired the smartphone modem business of", "Intel Corp",
             "Apple agreed to acquire the majority of Intel's smartphone modem business for $1 billion.", None)]),
        record("Google completes Fitbit deal", "2021-01-14", [ALPHABET, FITBIT], [], [
            ("Alphabet Inc", "acquired", "Fitbit", "Google completed its acquisition of Fitbit.", None)]),
        record("Microsoft closes Activision deal", "2023-10-13", [MICROSOFT, ACTIVISION], [], [
            ("Microsoft Corp", "acquired", "Activision Blizzard",
             "Microsoft closed its $69 billion acquisition of Activision Blizzard.", None)]),
        record("Fed minutes March 2024", "2024-03-20", [FED], [RATES, EMPLOYMENT], [
            ("Federal Reserve", "held", "Interest Rates",
             "The Federal Reserve held interest rates steady while its earlier tightening worked through the economy.",
             "March 2024"),
            ("Federal Reserve", "said tightening cooled", "Employment",
             "Fed officials said monetary tightening had cooled hiring without a rise in unemployment.", "March 2024")]),
        record("Microsoft overtakes Apple", "2024-05-02", [APPLE, MICROSOFT], [], [
            ("Microsoft Corp", "overtook", "Apple Inc",
             "Microsoft overtook Apple as the world's most valuable listed company.", None)]),
        record("Big tech and rates", "2024-08-05", [MICROSOFT, ALPHABET], [RATES], [
            ("Microsoft Corp", "affected by", "Interest Rates",
             "Microsoft said higher interest rates weighed on enterprise IT budgets.", "Q2 2024"),
            ("Alphabet Inc", "affected by", "Interest Rates",
             "Alphabet said interest rates affected advertiser spending.", "Q2 2024")]),
        record("Beige Book October 2024", "2024-10-23", [FED, FED_BOSTON, FED_ATLANTA],
               [INFLATION, MANUFACTURING, EMPLOYMENT, CONDITIONS], [
            ("Federal Reserve", "reported slower", "Inflation",
             "The Federal Reserve reported that price increases slowed in most districts.", "September-October 2024"),
            ("Federal Reserve", "described", "Economic Conditions",
             "The Federal Reserve said economic activity changed little in nearly all districts.",
             "September-October 2024"),
            ("Federal Reserve Bank of Boston", "reported flat", "Manufacturing",
             "The Boston Fed reported that manufacturing activity in New England was flat.", None),
            ("Federal Reserve Bank of Atlanta", "reported steady", "Employment",
             "The Atlanta Fed reported that employment in the Southeast was steady.", None)]),
        record("Apple fiscal Q4 2024 results", "2024-10-31", [APPLE], [INFLATION, RATES], [
            ("Apple Inc", "reported higher costs from", "Inflation",
             "Apple reported that inflation raised component costs in its fiscal fourth quarter.", "fiscal Q4 2024"),
            ("Apple Inc", "earned more interest because of", "Interest Rates",
             "Apple said its earnings benefited from higher interest rates on its cash holdings.", "fiscal Q4 2024")]),
        record("FOMC statement November 2024", "2024-11-07", [FED], [RATES, INFLATION], [
            ("Federal Reserve", "lowered", "Interest Rates",
             "The Federal Reserve lowered its benchmark interest rate by a quarter point.", None),
            ("Federal Reserve", "saw progress on", "Inflation",
             "The Federal Reserve said inflation had made progress toward its 2 percent goal.", None)]),
        record("Beige Book January 2025", "2025-01-15", [FED, FED_BOSTON], [INFLATION, MANUFACTURING, EMPLOYMENT], [
            ("Federal Reserve", "reported modest", "Inflation",
             "The Federal Reserve noted that prices rose modestly in the fourth quarter.", "Q4 2024"),
            ("Federal Reserve Bank of Boston", "reported a rebound in", "Manufacturing",
             "The Boston Fed reported a rebound in New England manufacturing.", "Q4 2024"),
            ("Federal Reserve", "reported flat", "Employment",
             "The Federal Reserve said employment was flat or up slightly in most districts.", "Q4 2024")]),
        record("Apple fiscal Q1 2025 results", "2025-01-30", [APPLE], [INFLATION], [
            ("Apple Inc", "reported margin pressure from", "Inflation",
             "Apple reported that inflation and tariffs pressured its gross margin.", "fiscal Q1 2025")]),
    ]


# -- the original's docs, verbatim --------------------------------------------------------------------

#: vanna_kg/skills/kg-query/SKILL.md: the kg_execute(...) calls, then each ```bash block, in order.
SKILL_MD = [
    'find --entity {"name":"Apple","definition":"US technology company"}',
    'find --topic {"name":"Inflation","definition":"General price increases"}',
    'find --entity {"name":"Apple","definition":"Consumer electronics company"} --topic {"name":"Inflation","definition":"General price increases"}',  # noqa: E501
    'search -entity "Apple Inc" -topic Inflation --mode around --query "reported"',
    'cat 1',
    'find --entity {"name":"Apple","definition":"Consumer electronics company"}',
    'find --topic {"name":"Inflation","definition":"General price increases"}',
    'find --entity {"name":"Federal Reserve","definition":"US central banking system"} --topic {"name":"Economic Conditions","definition":"Macro conditions in the economy"}',  # noqa: E501
    'find --entity {"id":"e1","name":"Apple","definition":"Consumer electronics company"} --entity {"id":"e2","name":"Microsoft","definition":"Enterprise software and cloud services company"}',  # noqa: E501
    'search -entity "Apple Inc"',
    'search -topic "Inflation"',
    'search -entity "Apple Inc, Microsoft Corp" --mode between',
    'search -entity "Fed Boston, Fed Atlanta" -topic "Manufacturing, Employment" --mode around',
    'search -entity "Apple Inc" -topic "Interest Rates" --query "affected by" --from 2024-01',
    'cat 1',
    'cat 1 2 3',
    'info "Apple Inc"',
    'info "Interest Rates"',
    'ls entities',
    'ls entities -type company',
    'ls topics',
    'ls documents',
    'stats',
]

#: vanna_kg/skills/kg-query/references/examples.md: its four worked sessions, in order.
EXAMPLES_MD = [
    'find --entity {"name":"Federal Reserve","definition":"US central banking system"} --topic {"name":"Inflation","definition":"General price increases"}',  # noqa: E501
    'search -entity "Federal Reserve" -topic Inflation --from 2024-10 --to-date 2024-10',
    'search -entity "Federal Reserve" -topic Inflation --from 2025-01 --to-date 2025-01',
    'cat 1',
    'find --entity {"name":"Apple","definition":"Consumer electronics and services company"}',
    'info "Apple Inc"',
    'search -entity "Apple Inc" --query "acquired"',
    'cat 1 2',
    'find --entity {"name":"Apple","definition":"Consumer electronics company"} --entity {"name":"Microsoft","definition":"Enterprise software company"} --entity {"name":"Google","definition":"Internet services company"} --topic {"name":"Interest Rates","definition":"Costs of borrowing money set by lenders"}',  # noqa: E501
    'search -entity "Apple Inc, Microsoft Corp, Alphabet Inc" -topic "Interest Rates" --mode around --from 2024-01',
    'cat 1 2 3',
    'find --entity {"name":"Federal Reserve","definition":"US central banking system"}',
    'search -entity "Federal Reserve"',
    'search -entity "Federal Reserve" -topic "Employment"',
    'search -entity "Federal Reserve" -topic "Employment" --query "tightening" --from 2024-01',
    'cat 1',
]

#: vanna_kg/mcp/server.py, the module docstring (the server's own summary of its syntax).
SERVER_DOC = [
    'find --entity {"name":"Apple","definition":"US technology company"}',
    'search -entity Apple_Inc -topic Interest_Rates --mode around --query "earnings" --from 2024-01',
    'cat 1',
    'info Apple_Inc',
    'ls entities -type company',
    'stats',
]

#: vanna_kg/mcp/server.py, the kg_execute tool's description (what an MCP client shows the agent).
TOOL_DESCRIPTION = [
    'find --entity {"name":"Apple","definition":"Consumer electronics company"}',
    'find --topic {"name":"Inflation","definition":"General price increases"}',
    'search -entity "Apple Inc" --mode around',
    'search -entity "Apple Inc, Microsoft Corp" --mode between',
    'search -entity "Fed Boston" -topic "Manufacturing" --query "reported" --from 2024-01',
    'cat 1',
    'info "Apple Inc"',
    'ls entities',
    'ls topics',
    'ls documents',
    'stats',
    'help',
]

#: references/troubleshooting.md (kept under zomma_kg/ in the stored history): a placeholder name, then cat.
TROUBLESHOOTING_MD = [
    'search -entity "..."',
    'cat 1',
]

#: The node each find selector of those docs means, by selector name.
MEANT = {"Apple": "E:apple-inc", "Microsoft": "E:microsoft-corp", "Google": "E:alphabet-inc",
         "Federal Reserve": "E:federal-reserve", "Inflation": "T:inflation", "Interest Rates": "T:interest-rates",
         "Economic Conditions": "T:economic-conditions"}
