# Non-ASCII identifiers (PEP 3131): letters from many scripts, NFKC-normalized.
import math

café = "coffee"
π = math.pi
τ = 2 * π
变量 = 42
名前 = "name"
переменная = [变量, 名前]
λ = lambda 𝑥: 𝑥 ** 2  # mathematical italic x normalizes to plain x
Ω_total = sum(переменная[:1])
_privé = True
ñandú2 = None
ﬁle = "ligature fi normalizes to 'file'"
ℌ = "black-letter H normalizes to 'H'"
assert café is café  # decomposed e + U+0301 normalizes to the NFC name


class Température:
    échelle = "celsius"

    def __init__(self, degrés: float) -> None:
        self.degrés = degrés

    def en_kelvin(self) -> float:
        return self.degrés + 273.15


def área(rayon: float) -> float:
    return π * rayon ** 2


def 計算(*数値, **オプション):
    return sum(数値), オプション


t = Température(degrés=21.5)
print(café, τ, λ(3), área(1.0), 計算(1, 2, 単位="m"), t.en_kelvin(), file, H)
print(f"{café=} {π:.3f} {变量!r}")
match café:
    case "coffee" as résultat:
        print(résultat)
