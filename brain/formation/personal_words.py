"""The personal-data filter's vocabulary, shared by its two layers (personal_data.py, the patterns;
personal_names.py, the word lists): the kinds of personal data, the alphabets a name is written in, and the
words that only look like names (common capitalised words, the support desk's own labels, named products)."""

from __future__ import annotations

import re


class PersonalDataKind:
    EMAIL = "email"
    PHONE = "phone"
    NAME = "name"
    ORDER_NUMBER = "order_number"
    CARD_NUMBER = "card_number"
    STREET_ADDRESS = "street_address"


_I = re.IGNORECASE


# Upper and lower case letters of the Latin, Greek and Cyrillic alphabets: "Ægir", "Señores", "Νάξου".
_UP = "A-ZÀ-ÖØ-ÞƏĀĂĄĆČĎĐĒĖĘĚĞĢĪĮİĶĹĻĽŁŃŅŇŌŐŒŔŘŚŞŠŢŤŪŮŰŲŸŹŻŽΆΈ-ΏΑ-ΩА-ЯЁ"


_LOW = "a-zß-öø-ÿəāăąćčďđēėęěğģīįıķĺļľłńņňōőœŕřśşšţťūůűųźżžά-ώа-яё"


# A word after a salutation that is not a name: "Hi there", "Dear customer", "Thanks again".
_NOT_A_NAME = frozenset(
    """there all everyone team folks guys customer customers sir madam friend friends again so very for you
    a the and again both in advance valued support again""".split()
)


_CAPITALISED_COMMON = frozenset(
    """Hi Hello Hey Dear Thanks Thank Cheers Sorry Our We You Your The This That Please Customers Customer
    Orders Order Refunds Refund Returns Shipping Delivery Support Team Monday Tuesday Wednesday Thursday Friday
    Saturday Sunday January February March April May June July August September October November December
    Acme Note Also Yes No Okay Ok Great Sure Just Any All Every Each Good Morning Afternoon Evening Firstly
    Secondly Thirdly Lastly Finally First Next Then Now Here There Once Additionally Alternatively Otherwise
    However Meanwhile Unfortunately Rest Remember Again Absolutely Certainly Of Course Well""".split()
)


_ENGLISH = re.compile(
    r"\b(?i:the|is|are|to|and|of|for|we|you|our|your|it|with|be|can|my|at|by|from|this|that|please|has|have|"
    r"he|she|they|his|her|their|me|would|could|should|what|how|who)\b|\bI\b"
)


# What follows a product or brand named after a person: "The Baker collection", "Sarah's Kitchen".
_NAMED_PRODUCT = re.compile(
    r"[ \t]+(?i:account|plan|tier|membership|subscription|option|feature)s?\b|"
    rf"(?:'s)?[ \t]+(?i:collection|range|series|line|edition|model|brand|bundle|set|kit|blend|roast|recipe|"
    rf"cookbook|book|album|store|shop|café|cafe|restaurant|hotel|gallery|award|prize|method)\b|'s[ \t]+[{_UP}]"
)


def _names_a_product(text: str, name: str) -> bool:
    at = text.find(name)
    return at >= 0 and bool(
        _NAMED_PRODUCT.match(text, at + len(name)) or re.search(rf"[{_UP}][{_LOW}]+'s[ \t]+$", text[:at])
    )


def _only_common_words(value: str) -> bool:
    """True for what only looks like a name: capitalised common words ("Thanks Again")."""
    words = re.findall(rf"[{_UP}{_LOW}]+", value)
    return bool(words) and all(
        w.capitalize() in _CAPITALISED_COMMON or w.lower() in _NOT_A_NAME for w in words
    )


_SUPPORT_WORDS = frozenset(
    """account accounts address app assistance billing bills button cancel cancellation card cart center centre
    change chat checkout contact customer delivery department desk details download edit email exchange fees
    form help history information invoice invoices item items live manager menu method methods modify newsletter
    number option options order orders page password pay payment payments phone policy portal preferences debit
    credit wallet wallets situations visa mastercard amex maestro paypal klarna facebook twitter instagram
    whatsapp tiktok youtube linkedin pinterest snapchat google apple amazon
    profile purchase purchases refund refunds request return returns review save section service services
    settings shipping status submit subscription support team terms tracking update website
    kunde kundin kunden bestellung bestellungen anmeldung lieferung rechnung rechnungen konto passwort versand
    paket rücksendung rückerstattung erstattung zahlung warenkorb""".split()  # German capitalises every noun
)
