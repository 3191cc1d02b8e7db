"""Names and street addresses in none of the filter's word lists (issue 26, section 1): what the train and dev
templates admitted with other identities, and with names held out of the Lexicon (`brain_bench pii-stress`),
before 2026-12-02."""

import pytest

from brain.formation import pii_model
from brain.formation.name_scorer import NameScorer
from brain.formation.personal_data import find_personal_data

from .conftest import needs_model

PUBLISHED = ["support@acme.test"]


@needs_model
@pytest.mark.parametrize(
    "text, kind",
    [
        # Train and dev templates filled with other identities.
        ("Will my account stay active? It's under my partner's name Tosh Brandt", "name"),
        ('"I\'m glad to hear that Hungary is moving in that direction," says Lugo.', "name"),
        ("sometimes people call me daniel", "name"),
        ("I'd like it to be sent to Opplands gate 8\nHAMAR,  2315", "street_address"),
        ("Meet me at 768 OSLO, Pernilles vei 115", "street_address"),
        ("The bus drops you off at 295 Agip u. 91. St.", "street_address"),
        ("The restaurant is at 2736 Rúa do Paseo 46", "street_address"),
        ("Please return to 76 Boulevard de Normandie, 38600 FONTAINE in case of an issue.", "street_address"),
        ("The office is at 40 rue des six frères Ruellan, 44230 SAINT-SÉBASTIEN-SUR-LOIRE", "street_address"),
        ("it's in slovenčeva 63\ndole pri litiji,  1273", "street_address"),
        ("the bus station is on pardubská 49", "street_address"),
    ],
)
def test_other_identities_of_the_train_and_dev_templates_are_refused(worker, text, kind):
    hit = find_personal_data(text, published=PUBLISHED)
    assert hit is not None and hit.kind == kind, hit


@needs_model
@pytest.mark.parametrize(
    "text, unlisted",
    [
        # Names the stress measure held out of the lists: at a sentence's start with a middle initial, after a
        # label, coordinated, lower-cased after a cue or beside a listed first name.
        ("Borgdís I Nuraini from Netflix Inc. is the keynote speaker", "borgdis nuraini"),
        ('Hugrún S Wallner, the Lease buyer, said: "I\'m glad to hear that."', "hugrun wallner"),
        ("Action & Adventure, Comedy\nDirected By:    Carli S Zophanías", "carli zophanias"),
        (
            "Is there a better pop song on this list? Kweyama and Chaudhuri were precision engineers.",
            "kweyama chaudhuri",
        ),
        ("i would like to remove my kid mavie from the will. how do i do that?", "mavie"),
        ("what's your name? salomey i. walch", "salomey walch"),
        ("sometimes people call me jaanus", "jaanus"),
        ("Could you please correct it to Mr. Əmir Z Devine?", "əmir devine"),
        ("a tribute to marta bruun – sadly, she wasn't impressed.", "bruun"),
    ],
)
def test_names_in_no_list_are_refused(worker, text, unlisted):
    with pii_model.lexicon_without(frozenset(unlisted.split())) as words:
        assert not any(words.is_first(w) or words.is_last(w) for w in unlisted.split())
        hit = find_personal_data(text, published=PUBLISHED)
    assert hit is not None and hit.kind == "name", hit


@needs_model
@pytest.mark.parametrize(
    "text",
    [
        "Boarding starts at Departure gate 12 an hour before take-off.",
        "Same-Day Delivery is available in most cities.",
        "Samsung Galaxy phones are supported by the app.",
        "Enter the code on the Sign-Up page.",
        "Check the Order History section for your invoices.",
        "We ship from our warehouse at Leeds 2 to Paris and Lyon.",
        "Complete the registration and the Freemium account is created.",
        "Zendesk and Shopify connect through the Integrations page.",
    ],
)
def test_support_text_with_words_in_no_list_stays_learnable(worker, text):
    assert find_personal_data(text, published=PUBLISHED) is None


@needs_model
@pytest.mark.parametrize(
    "text, name",
    [
        # Where a person speaks or acts (2026-12-06, from train and dev misses; each was admitted before).
        (
            "Nobody expected it! said Marina to me.",
            "Marina",
        ),  # a speech verb after "!", a name that is a place
        ("we met at the station and ingrid shouted at the driver", "ingrid"),  # lower case, a person acting
        ("the parcel came late, then jorge laughed at the note", "jorge"),
        # The family of a word the lists call English.
        ("It was settled between him and Ormazd's daughter.", "Ormazd"),
        # From `brain_bench pii-stress` (train and dev, names held out of the lists).
        ("we stayed at tamsin's sister for a week", "tamsin"),  # lower case, before a family word
        ("then dorwin laughed at the idea", "dorwin"),  # in no list, doing what only a person does
        ("Her maiden name is ter Hoeve", "Hoeve"),  # announced, a particle between, a place too
        # Addressed by name mid-sentence (a dev template, 2026-12-07, with names in no list).
        ("You picked a fine time to leave me Tadzio, four hungry children and a crop in the field", "Tadzio"),
        ("Come on Marsilius, answer the phone.", "Marsilius"),
        ("Please help me Orlaith, I am stuck.", "Orlaith"),
        ("c'mon tadzio, pick up the phone.", "tadzio"),  # all in lower case
        # A listed first name that is an English word too, after "me" or "you" (the dev template's last miss).
        ("You picked a fine time to leave me Simon, four hungry children and a crop in the field", "Simon"),
        # A surname that is a place too, acting, then called "her" (a train template, other identities).
        ("Johnston began writing as a teenager, publishing her first story.", "Johnston"),
    ],
)
def test_a_lone_name_where_a_person_speaks_or_acts_is_refused(worker, text, name):
    hit = find_personal_data(text, published=PUBLISHED)
    assert hit is not None and (hit.kind, hit.value) == ("name", name), hit


@needs_model
@pytest.mark.parametrize(
    "text",
    [
        # "He" and "She" were names (a surname list holds "He"): refused before.
        "He said the parcel never arrived.",
        "She told us the refund had not arrived.",
        "He added that the courier left it at the door.",
        # A company's people are no family; a company spoken to is no person.
        "Apple's founder spoke to the press.",
        "You can talk to Klarna about payment plans.",
        # Companies in a customer's lower-case message have and are things as people do.
        "dhl has lost my parcel",
        "zalando is late with my refund",
        "gls was supposed to come today",
        # A brand before a comma stands after a preposition, not a pronoun or an interjection.
        "I ordered it from Zalando, but it never came.",
        "I paid with Klarna, then the payment failed.",
        "Ok Google, set a timer for the oven.",
        "We moved everything to Shopify, and sales went up.",
        "i ordered it from zalando, but it never came.",
        "Warsaw began delivering on Sundays, and it is popular.",  # a place acting is "it"
        "Victoria began shipping to Europe last year.",
        "See you May, when the shop reopens.",  # a month after "you"
        "I'll call you Monday, if that works.",
        # German capitalises its nouns, and "Kunde" is a surname too.
        "Tu so, als wärst du ein neuer Kunde, und teste die Anmeldung.",
        "Der Kunde hat die Bestellung storniert.",
        "The shop on Kolonaki, near the station, was closed.",
    ],
)
def test_pronouns_and_companies_are_not_names(worker, text):
    assert find_personal_data(text, published=PUBLISHED) is None


def test_the_name_scorer_is_trained_on_the_lists_it_is_given():
    scorer = NameScorer.from_lists(
        ["maria", "marta", "marina", "martin"],
        ["kowalska", "kowalski", "nowak"],
        ["market", "basket", "ticket"],
    )
    assert scorer.score("marika") > scorer.score("packet")
    assert scorer.name_like("kowalik") and not scorer.name_like("racket")


@needs_model
def test_held_out_names_leave_the_lists_for_the_block_only(worker):
    before = pii_model.lexicon()
    with pii_model.lexicon_without(frozenset({"maria"})) as words:
        assert not words.is_first("Maria") and pii_model.lexicon() is words
    assert pii_model.lexicon() is before and before.is_first("Maria")


def test_the_stress_measure_never_reads_the_test_split():
    from brain.benchmarks import public_pii_stress

    with pytest.raises(ValueError):
        public_pii_stress.stress_figures("test")


@needs_model
@pytest.mark.parametrize(
    "text",
    [
        # 2026-12-06: a sentence in another language that begins with one of its common words, which Faker
        # lists as a name somewhere, was refused as personal data (724 of the wide benign train and dev texts).
        "Sie können Ihre Bestellung jederzeit stornieren.",
        "Hij is niet thuis, dus het pakket ligt bij de buren.",
        "Wat is de status van mijn bestelling?",
        "Está faltando uma barra no início da URL.",
        "Du kan endre det igjen nedenfor.",
        "Tal vez pueda ayudarle con el pedido.",
        "Juni",  # month names of other languages, an interface's labels (Django's German and Polish messages)
        "Maj",
    ],
)
def test_a_common_word_of_another_language_is_no_name_in_its_own_text(worker, text):
    assert find_personal_data(text, published=PUBLISHED) is None


@needs_model
@pytest.mark.parametrize(
    "text",
    [
        "Тарас сказав, що замовлення ще не прийшло.",  # a name no language lists as a common word
        "Ali Yılmaz siparişini iptal etti.",  # a common word and a surname: the surname is read
        "Mia Wong called about her order.",  # English text: the common words of other languages do not apply
    ],
)
def test_names_in_other_languages_and_in_english_text_are_still_refused(worker, text):
    hit = find_personal_data(text, published=PUBLISHED)
    assert hit is not None and hit.kind == "name", hit
