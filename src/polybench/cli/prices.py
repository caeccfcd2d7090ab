"""The token price options (``report``, ``view``) and the prices they give."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from polybench.cli.consoles import err_console

if TYPE_CHECKING:
    from polybench.report.model import TokenPrices

PriceInputOption = Annotated[
    float | None,
    typer.Option(min=0, metavar="USD_PER_MTOK", help="Price of a million input tokens."),
]
PriceOutputOption = Annotated[
    float | None,
    typer.Option(min=0, metavar="USD_PER_MTOK", help="Price of a million output tokens."),
]
PriceCachedOption = Annotated[
    float | None,
    typer.Option(
        min=0,
        metavar="USD_PER_MTOK",
        help="Price of a million cached input tokens (default: the input price).",
    ),
]


def prices_or_exit(
    price_input: float | None, price_output: float | None, price_cached: float | None
) -> TokenPrices | None:
    """The token prices given, or None; exits with 2 when only some of them are."""
    from polybench.report.model import TokenPrices

    if price_input is None and price_output is None and price_cached is None:
        return None
    if price_input is None or price_output is None:
        err_console.print(
            "[red]error:[/red] costs need both --price-input and --price-output "
            "(--price-cached is optional)"
        )
        raise typer.Exit(2)
    return TokenPrices(input=price_input, output=price_output, cached=price_cached)
