"""Issue 26, section 2: a learned policy in a language the grant vocabulary cannot read waits as a grant does.

The sentences are written for these tests, in other words than the labelled sets' (brain/benchmarks/data)."""

import pytest

from brain.formation.grants import grant_in
from brain.formation.grants_languages import LANGUAGES
from brain.formation.reading import READ, language_name, unread_language

UNREAD = [
    ("tr", "Siparişiniz geç gelirse kargo ücretini size geri ödüyoruz."),
    ("ko", "배송이 늦어지면 배송비를 전액 돌려드립니다."),
    ("ar", "إذا تأخر طلبك نعيد لك رسوم الشحن كاملة."),
    ("sv", "Om paketet kommer sent betalar vi tillbaka fraktavgiften."),
    ("id", "Jika pesanan terlambat, kami mengembalikan seluruh ongkos kirim."),
    ("vi", "Nếu đơn hàng đến trễ, chúng tôi hoàn lại toàn bộ phí vận chuyển."),
    ("cs", "Pokud zásilka dorazí pozdě, vrátíme vám celé poštovné."),
    ("el", "Αν η παραγγελία αργήσει, σας επιστρέφουμε ολόκληρα τα μεταφορικά."),
    ("uk", "Якщо замовлення запізнюється, ми повертаємо всю вартість доставки."),
    ("hi", "अगर आपका सामान देर से पहुँचता है तो हम पूरा शिपिंग शुल्क लौटा देते हैं।"),
    ("fi", "Jos paketti myöhästyy, palautamme koko toimitusmaksun."),
    ("he", "אם ההזמנה מתעכבת, אנחנו מחזירים את דמי המשלוח במלואם."),
    ("th", "หากพัสดุมาถึงล่าช้า เราจะคืนค่าจัดส่งให้ทั้งหมด"),
    ("hu", "Ha a csomag késve érkezik, a teljes szállítási díjat visszatérítjük."),
]


@pytest.mark.parametrize(("code", "text"), UNREAD, ids=[code for code, _ in UNREAD])
def test_a_claim_in_a_language_the_vocabulary_does_not_read_is_unread(code, text):
    """Every one of these gives money back; none names anything the vocabulary knows, so before this module each
    was learned from one ticket as an active business fact."""
    assert grant_in(text) is None
    assert unread_language(text) == code


READ_CLAIMS = [
    # Short or mixed English spreads the model's probability over many languages; English keeps a share.
    "We do ship to Dublin!",
    "We deliver to Munich and Zürich.",
    "Our İstanbul and Ankara stores open at 9.",
    "Saturday: 10:00-16:00, Sunday closed.",
    "Ordinary refunds take five working days.",
    # One in each of the ten other languages (Russian is sometimes taken for Bulgarian; it keeps a share).
    "Los pedidos llegan en tres días laborables.",
    "Les commandes arrivent sous trois jours ouvrés.",
    "Bestellungen kommen innerhalb von drei Werktagen an.",
    "Gli ordini arrivano entro tre giorni lavorativi.",
    "Os pedidos chegam em três dias úteis.",
    "Bestellingen komen binnen drie werkdagen aan.",
    "Zamówienia docierają w ciągu trzech dni roboczych.",
    "Уточните номер заказа и адрес доставки.",
    "订单通常在三个工作日内送达。",
    "ご注文は三営業日以内にお届けします。",
]


@pytest.mark.parametrize("text", READ_CLAIMS)
def test_a_claim_in_a_language_the_vocabulary_reads_is_read(text):
    assert unread_language(text) is None


@pytest.mark.parametrize("text", ["", "Tel: 0212 555", "Pzt–Cuma 9–18", "영업시간 9시"])
def test_a_claim_too_short_to_tell_counts_as_read(text):
    assert unread_language(text) is None


def test_the_languages_read_are_those_the_vocabulary_has():
    assert READ == {"en", *LANGUAGES}
    assert language_name("tr") == "Turkish" and language_name("xx") == "xx"
