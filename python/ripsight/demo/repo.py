"""The demo's repository, generated deterministically, and the question the model is asked
about it."""

from __future__ import annotations

import random
from pathlib import Path

__all__ = ["QUESTION", "make_demo_repo"]

QUESTION = (
    "CI is red: `FAILED tests/test_pricing.py::test_ten_percent_off - assert 10.0 == 90.0`. "
    "Why is my test red?"
)

_PRICING = '''\
"""Prices, discounts and rounding."""

from __future__ import annotations

CURRENCY = "EUR"


def round_price(value: float) -> float:
    """Rounds to cents, half up."""
    return float(int(value * 100 + 0.5)) / 100


def apply_discount(price: float, percent: float) -> float:
    """The price after a discount of `percent` per cent (10 means 10% off)."""
    return price * percent / 100


def with_tax(price: float, rate: float = 0.2) -> float:
    return round_price(price * (1 + rate))
'''

_TEST_PRICING = """\
from shop.pricing import apply_discount, with_tax


def test_tax_is_added():
    assert with_tax(10.0) == 12.0


def test_ten_percent_off():
    assert apply_discount(100.0, 10) == 90.0


def test_no_discount():
    assert apply_discount(50.0, 0) == 50.0
"""

_CART = '''\
"""A shopping cart."""

from __future__ import annotations

from dataclasses import dataclass, field

from .pricing import apply_discount, round_price


@dataclass
class Cart:
    items: list[tuple[str, float]] = field(default_factory=list)
    discount_percent: float = 0.0

    def add(self, name: str, price: float) -> None:
        self.items.append((name, price))

    def total(self) -> float:
        subtotal = sum(price for _, price in self.items)
        return round_price(apply_discount(subtotal, self.discount_percent))
'''

_TEST_CART = """\
from shop.cart import Cart


def test_empty_cart_costs_nothing():
    assert Cart().total() == 0.0
"""


def make_demo_repo(root: Path, seed: int = 7) -> Path:
    """Writes the demo repository under `root` (deterministic for a given seed); returns root."""
    rng = random.Random(seed)
    files: dict[str, str] = {
        "README.md": "# shop\n\nA tiny shop library. Run the tests with `pytest`.\n",
        "pyproject.toml": '[project]\nname = "shop"\nversion = "0.3.1"\n\n'
        '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
        ".gitignore": "build/\n*.egg-info/\n.venv/\n",
        "src/shop/__init__.py": '"""shop: carts, prices and stock."""\n',
        "src/shop/pricing.py": _PRICING,
        "src/shop/cart.py": _CART,
        "tests/test_pricing.py": _TEST_PRICING,
        "tests/test_cart.py": _TEST_CART,
        "docs/changelog.md": "## 0.3.1\n\n- apply_discount takes a percentage now (was a fraction).\n",
    }
    for name in ("inventory", "shipping", "catalog", "invoices"):
        body = [f'"""{name.capitalize()} helpers."""', ""]
        for i in range(rng.randint(2, 4)):
            body += [
                f"def {name}_{i}(value: int) -> int:",
                f"    return value * {rng.randint(2, 9)} + {rng.randint(0, 99)}",
                "",
                "",
            ]
        files[f"src/shop/{name}.py"] = "\n".join(body).rstrip() + "\n"
    # A long data file: reading it whole gives a result over the budget, stored by reference.
    files["data/prices.csv"] = "sku,price,stock\n" + "".join(
        f"SKU-{i:05d},{rng.randint(100, 99_999) / 100:.2f},{rng.randint(0, 500)}\n"
        for i in range(1, 1201)
    )
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
