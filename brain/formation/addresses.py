"""Street addresses the Latin patterns of personal_data.py do not read: other scripts, and the layouts of
countries whose addresses carry no street word that patterns know (pure patterns).

Each pattern needs a layout only an address has: a house number beside a street word or an abbreviation
("ул. Ленина, д. 5", "276 شارع التحرير", "南京路100号", "29丁目17番19号"), a postcode where a country puts it
("…, 61-645 Turek", "…, भागलपुर-938347", "…, 33043, Purgessimo (UD)"), or a chain of a country's
administrative areas ("ตำบล… อำเภอ…", "서울특별시 강남구 역삼동"); after words that say an address
follows ("send it to", "delivery details:"), a house number beside a name ("5 Horokawa Reserve"). A street
named without a number ("我们在南京路", "عن طريق البريد", "площадь 50 м²") is no address. Written from Faker's
address formats of its 100-odd locales; `brain_bench pii-locales` measures them there and on Mimesis's, which
nothing here was written from.
"""

from __future__ import annotations

import re

from .personal_words import _LOW, _UP

_NUMBER = r"[0-9０-９]{1,5}"
_HAN = r"\u4e00-\u9fff"
_KANA = r"\u3040-\u309f\u30a0-\u30ff"
_HANGUL = r"\uac00-\ud7a3"
_ARABIC = r"\u0600-\u06ff"
_HEBREW = r"\u05d0-\u05ea"
_ARMENIAN = r"\u0531-\u0587"
_GEORGIAN = r"\u10d0-\u10ff"
_INDIC = r"\u0900-\u0dff"  # Devanagari to Sinhala: Hindi, Marathi, Nepali, Bengali, Tamil, ...
_THAI = r"\u0e01-\u0e4e"
_CYR_UP = "А-ЯЁІЇЄҐ"
_CYR = "А-ЯЁІЇЄҐа-яёіїєґ'’-"

# The three layouts that need no digit (a building by its letter, a chain of areas); every other one needs one.
_CHINESE_BUILDING = (
    rf"(?:省|市|区|區|县|縣)[{_HAN}]{{1,12}}(?:路|街|道|巷|胡同)\s*[A-Za-z0-9]{{1,3}}\s*[座栋棟]"
)
_KOREAN_AREAS = (
    rf"[{_HANGUL}]{{1,8}}(?:특별시|광역시|특별자치시|시|도)\s+[{_HANGUL}]{{1,8}}(?:시|구|군)\s+[{_HANGUL}\d]{{1,12}}"
    rf"(?:로|길|동|읍|면)(?![{_HANGUL}])"
)
_THAI_AREAS = rf"(?:ตำบล|ต\.|แขวง)\s?[{_THAI}]+\s+(?:อำเภอ|อ\.|เขต)\s?[{_THAI}]"
# Words that say an address follows ("send the replacement to", "delivery details:", "I live at"), and a house
# number beside a name after them: where a name and a number alone may be a product and its version ("Windows
# 11"), after these words they are where someone lives ("... to 5 Horokawa Reserve", "... to 21407 ترابين Falls",
# "Address: Aleea Nemeș, Dobroesti, 895672"). The group `address` is what was found.
_SAYS_AN_ADDRESS_FOLLOWS = (
    r"(?i:\b(?:send|ship|deliver|mail|post|forward|courier)\b[^.!?\n]{0,40}?\bto"
    r"|\b(?:delivery|shipping|postal|home|billing|mailing)\s+(?:details|address)\s*(?:is|are|:)"
    r"|\baddress\s*(?:is|:)|\b(?:i|we)\s+live\s+at)"
)
_LETTERS_WITHOUT_CAPITALS = rf"{_HAN}{_KANA}{_HANGUL}{_ARABIC}{_HEBREW}{_ARMENIAN}{_GEORGIAN}{_INDIC}{_THAI}"
# A name: a capital and small letters ("Horokawa"; not "HR 2 weeks"), or letters of a script without capitals.
_NAMED = rf"(?:[{_UP}][{_LOW}][^\s\d,.;:]*|[{_LETTERS_WITHOUT_CAPITALS}][^\s\d,.;:]*)"
INTRODUCED = re.compile(
    rf"{_SAYS_AN_ADDRESS_FOLLOWS}[ \t]+[^.!?\n]{{0,60}}?(?P<address>(?:"
    rf"(?<![\d.,:])\d{{1,6}}[a-zA-Z]?[-,]?[ \t]?{_NAMED}|{_NAMED},?[ \t]?\d{{1,6}}(?![\d.,:%]\d|\d))"
    # then the names, numbers and codes after it: the whole line is what was found ("..., Johnmouth 8225")
    rf"(?:,?[ \t]+(?:{_NAMED}|\d{{1,6}}\b|[A-Z]{{2}}\b))*)"
)

PATTERNS = tuple(
    re.compile(pattern)
    for pattern in (
        # Chinese: a road, street, lane or alley and its number ("南京路100号", "光明路1段85號"; not "你知道3号",
        # the 3rd), or a city's road and a building ("上海市浦东新区世纪大道A座").
        rf"[{_HAN}]{{1,15}}(?:路|街|大道|巷|胡同|弄)\s*(?:\d{{1,2}}\s*段\s*)?{_NUMBER}\s*[号號]",
        _CHINESE_BUILDING,
        # Japanese: chōme, banchi and gō ("29丁目17番19号", "3番地"), a town and its numbers ("横浜市 1-2-3"),
        # a postcode mark ("〒150-0002").
        rf"{_NUMBER}\s*丁目|{_NUMBER}\s*番地|{_NUMBER}\s*番\s*{_NUMBER}\s*号",
        rf"[{_HAN}{_KANA}]{{1,10}}(?:市|区|町|村)\s*{_NUMBER}[-−－]{_NUMBER}(?:[-−－]{_NUMBER})?",
        r"〒\s*\d{3}[-−－]?\d{4}",
        # Korean: a road and its number after a city, county or district ("예산군 백제고분로 61"; not "서울시
        # 지점으로 3일", to the Seoul branch in 3 days), a numbered side street ("테헤란로 12번길 3"), or the chain
        # of areas itself ("서울특별시 강남구 역삼동").
        rf"(?:시|군|구|도)\s+[{_HANGUL}\d]{{1,12}}(?:(?<!으)로|길|거리)\s?\d{{1,5}}(?:-\d{{1,4}})?"
        r"(?![\d.]|\s*(?:일|개|분|시간|원|년|월|주|명|회|번|%|영업일))",
        rf"[{_HANGUL}]{{2,10}}(?:로|길)\s?\d{{1,4}}번길\s?\d{{1,4}}",
        _KOREAN_AREAS,
        # Thai: a house number and a road, lane or village ("8/9 ถนนธีวร", "67 หมู่ 92"), or a subdistrict
        # and its district ("ตำบลเขาพระนอน อำเภอป้อมปราบ").
        rf"\d{{1,4}}(?:/\d{{1,4}})?\s+(?:ถนน|ถ\.|ซอย|ซ\.)\s?[{_THAI}]{{2,}}|\d{{1,4}}\s+หมู่(?:ที่)?\s*\d{{1,3}}\b",
        _THAI_AREAS,
        # India and Nepal: a six-digit PIN after a place that follows a comma ("…, भागलपुर-938347",
        # "…, Srikakulam 174218"; not "…, लगभग 100000 ग्राहक", about 100000 customers), a house, flat or ward
        # number ("मकान नं. 12", "বাসা নং ৯৩", "वडा 8").
        rf",\s*[{_INDIC}{_UP}][{_INDIC}{_LOW}\u200c\u200d-]+(?:[-–]\s?\d{{6}}(?!\d)|\s\d{{6}}(?!\d|\s*[{_INDIC}]))",
        r"(?:मकान|गली|फ्लैट|प्लॉट|भवन|घर)\s*(?:नं\.?|नंबर|संख्या)\s*\d{1,5}",
        r"(?:বাসা|বাড়ী|বাড়ি|হোল্ডিং|বিল্ডিং|রোড|ফ্ল্যাট)\s*(?:নং|নম্বর)\s*\d{1,5}",
        r"(?:वडा|वार्ड|घर)\s*(?:नं\.?|नम्बर)?\s*\d{1,3}\s*,",
        # Arabic and Persian: a number before a street word ("276 شارع التحرير", "42 زنقة محمدي"), a street
        # word, its name and a number ("شارع الملك فهد 12"; not "عن طريق ..."), a plaque or flat number.
        rf"(?<![\d.,])\d{{1,5}}\s+(?:شارع|طريق|نهج|زنقة|ساحة|مقطع|درب|دوار|خیابان|کوچه|بلوار|میدان)\s+[{_ARABIC}]",
        rf"(?:شارع|نهج|زنقة|خیابان|کوچه|بلوار)\s+(?:[{_ARABIC}]+\s+){{0,3}}[{_ARABIC}]+\s*[،,]?\s*(?:رقم\s*)?"
        r"\d{1,5}(?![\d%])(?!\s*(?:يوم|أيام|ساعة|ساعات|دقيقة|دقائق|روز|ساعت|دقیقه))",
        r"(?:پلاک|پلاك|شقة\s+رقم|عمارة\s+رقم)\s*\d{1,5}",
        # Hebrew: a street word, its name and a number ("רחוב הרצל 12"), or a house number, a town and a
        # seven-digit postcode ("מגלן 54, גינתון, 1948757").
        rf"(?:רחוב|רח['׳]|שדרות|שד['׳]|סמטת)\s+[{_HEBREW}\"'׳״ ]{{2,30}}?\s\d{{1,4}}(?!\d)",
        rf"[{_HEBREW}]+\s\d{{1,4}},\s*[{_HEBREW}][{_HEBREW}\s]*,\s*\d{{7}}(?!\d)",
        # Armenian: a city or village, perhaps its province, then its postcode or a street and number
        # ("ք. Աշտարակ, 0543", "ք. Ախթալա, Գևորգ Քոչարի 9"), a street abbreviation and a number ("Աբովյան փ. 5").
        rf"(?:ք|գ)\.\s*[{_ARMENIAN}-]+,\s*(?:[{_ARMENIAN}][{_ARMENIAN}\s]{{1,30}},\s*)?"
        rf"(?:\d{{4}}\b|[{_ARMENIAN}][{_ARMENIAN}\s]{{1,30}}\s\d{{1,4}})",
        rf"[{_ARMENIAN}]+\s+(?:փ\.|փողոց|պող\.|պողոտա|նրբ\.)\s*\d{{1,4}}",
        # Georgian: a name, a street word and a number ("მიჩურინის ქ. 87").
        rf"[{_GEORGIAN}]+\s+(?:ქ\.|ქუჩა|გამზ\.|გამზირი|ჩიხი|შესახვევი)\s*(?:N\s*|№\s*)?\d{{1,4}}",
        # Russian and Ukrainian: a street word or its abbreviation, a name and a number ("ул. Ленина, д. 5",
        # "алл. Брянская, д. 3/2", "шосе Асташкіна, буд. 0"; not "по ул. Ленина занимает 2 дня"), a house and
        # its flat ("д. 5, кв. 12").
        rf"(?<![\w])(?i:улица|ул|вулиця|вул|проспект|просп|пр|переулок|провулок|пров|пер|бульвар|бул|аллея|алея|"
        rf"алл|площадь|площа|пл|набережная|набережна|наб|шоссе|шосе|ш|тупик|туп|проезд|проїзд|парк)\.?\s*"
        rf"[{_CYR_UP}][{_CYR}]+(?:\s+[{_CYR}]+){{0,2}},?\s*(?:(?:д|буд|дом|будинок)\.?\s*)?\d{{1,4}}"
        r"(?![\d%]|\s*(?:дн|день|дня|дней|час|мин|руб|грн|шт|раз|км|м\b|тыс|млн))",
        r"(?<![\w])(?:д|буд)\.\s*\d{1,4}(?:/\d{1,4})?[а-я]?,?\s*(?:(?:стр|корп|к)\.\s*\d{1,4}(?:/\d{1,4})?,?\s*)?"
        r"(?:кв\.|квартира)\s*\d{1,4}",
        # Vietnamese: an alley or lane and its number ("Ngõ 29", "Số 8/45", "Đường số 86").
        r"\b(?:Ngõ|Ngách|Hẻm|Kiệt)\s+\d{1,4}\b|\bSố\s+\d{1,4}(?:/\d{1,4})+\b|\bĐường\s+số\s+\d{1,3}\b",
        # Azerbaijani: building and flat ("b. 8, m. 42").
        r"\bb\.\s*\d{1,4},\s*m\.\s*\d{1,4}\b",
        # A house number, then the postcode and town ("Weg 10, 39075 Saarbrücken", "Sklady 393, 787 92
        # Miletín", "Τραγάνας 28,, ΤΚ 921 74 Γρεβενά", "90/99, 51-051 Siemianowice"; a year is no house number:
        # "In 2020, 12500 Customers").
        rf"\b(?!(?:19|20)\d\d\b)\d{{1,5}}[a-zA-Zа-я]?(?:/\d{{1,4}})?\.?,{{1,2}}\s*(?:[{_UP}]{{1,2}}[- ]?)?"
        rf"(?:\d{{2,3}}\s?\d{{2,3}}|\d{{2}}-\d{{3}}|\d{{4}}\s?[A-Z]{{2}})[,\s]+[{_UP}][{_LOW}]{{2,}}",
        # Italy: postcode, town and province ("33043, Purgessimo (UD)"); Brazil: a CEP before a town
        # ("92174-218 Peixoto") or after its word; Mexico: a flat ("Depto. 218").
        rf"\b\d{{5}},?\s+[{_UP}][{_LOW}]+(?:[\s-][{_UP}]?[{_LOW}]+){{0,3}}\s+\([A-Z]{{2}}\)",
        rf"\b\d{{5}}-\d{{3}}\s+[{_UP}][{_LOW}]{{2,}}|\bCEP:?\s*\d{{5}}-?\d{{3}}\b",
        r"\b(?:Depto|Dpto)\.?\s*\d{1,4}\b",
        # A house number by its sign in Spanish ("Avenida 4 N° 625"); a block and lot ("B08 L17", "Blk 8 Lot 2").
        r"\b(?:Calle|Avenida|Av\.|Pasaje|Ruta|Camino)\s+[\w .]{1,30}?\s(?:N°|Nº|Nro\.?)\s*\d{1,5}\b",
        r"\b(?:B|Blk\.?|Block)\s?\d{1,3}\s+(?:L|Lot)\s?\d{1,3}\b",
        # Australia: state and postcode after a comma ("…, NSW, 2991"); Canada: a postcode ("AB T9L 2S5");
        # the armed forces' post ("PSC 5432, Box 3194", "APO AP 65396").
        r",\s*(?:ACT|NSW|NT|QLD|SA|TAS|VIC|WA),?\s+\d{4}\b",
        r"\b(?:AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT)\s+[A-Z]\d[A-Z]\s?\d[A-Z]\d\b|\b[A-Z]\d[A-Z] \d[A-Z]\d\b",
        r"\b(?:PSC|CMR|Unit)\s+\d{4},\s*Box\s+\d{3,4}\b|\b(?:APO|FPO|DPO)\s+(?:AA|AE|AP)\s+\d{5}\b",
    )
) + (INTRODUCED,)
# What a text without a digit can hold, in PATTERNS' order: personal_data.py reads only these there.
WITHOUT_DIGITS = tuple(p for p in PATTERNS if p.pattern in (_CHINESE_BUILDING, _KOREAN_AREAS, _THAI_AREAS))
