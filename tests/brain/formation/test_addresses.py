"""Street addresses and phone numbers of countries whose layouts the Latin patterns did not read (2026-12-06:
all but three of the addresses and phones below were admitted; `brain_bench pii-locales` found them in Faker's
locales), and the sentences that share their words or numbers without being one, which stay learnable.
Patterns only: they hold in a request too, where the model is not asked."""

import pytest

from brain.formation.gate import gate_check
from brain.formation.personal_data import find_personal_data

ADDRESSES = [
    "请寄到上海市南京路100号。",
    "地址是陈家湾胡同276号，谢谢。",
    "寄到台中光明路1段85號8樓。",
    "送货到新疆维吾尔自治区凤兰市浔阳西安路j座 380967",
    "徳島県横浜市戸塚区入谷29丁目17番19号に送ってください。",
    "浜松市 26-50-45 までお願いします。",
    "〒150-0002 までお届けください。",
    "경상남도 예산군 백제고분로 61 로 보내주세요.",
    "전라남도 이천시 잠실거리 54 (영호송리)",
    "서울특별시 강남구 역삼동 으로 배송해 주세요.",
    "8/9 ถนนธีวร อำเภอเรณูนคร อุทัยธานี 31740",
    "67 หมู่ 92 ถ.แจ้งสว่าง",
    "ตำบลเขาพระนอนใหญ่ อำเภอป้อมปราบศัตรูพ่าย",
    "003 प्रिया कुमार, भागलपुर 938347",
    "89/3287 गोपाल गुरुंग, अखनूर-809679",
    "91/294 राऊत, पिंपरी-चिंचवड-190415",
    "বাসা নং ৯৩, উত্তর বিজয়দিয়া",
    "श्रेष्ठ रोड वडा 8 , शम्भुनाथ",
    "Please ship it to 89, Goyal Ganj, Srikakulam-174218.",
    "89 نهج فارس تيغنيف - سوق أهراس",
    "254 دوار مزرية بلعيد",
    "العنوان: شارع الملك فهد 12، الرياض",
    "پلاک 12، تهران",
    "רחוב הרצל 12, תל אביב",
    "מגלן 54, גינתון, 1948757",
    "ք. Ճամբարակ, 1755, Սեբաստիայի 92",
    "ք. Ախթալա, Գևորգ Քոչարի 9",
    "գ. Զովք, Լոռիի մարզ, 3251, Զարոբյան 9",
    "მიჩურინის ქ. 87, ბათუმი",
    "с. Тикси, алл. Брянская, д. 3/2 стр. 5/3, 809679",
    "парк Пшенична, буд. 328 кв. 92, Болехів",
    "набережна Сашка Хорошенка, буд. 096, Луганськ",
    "Доставьте: д. 5, кв. 12, Москва.",
    "Số 94/553 Ngõ 29 Đường Phan Chu Trinh",
    "Şəki şəhəri, 28 MAY küç., b. 8, m. 0",
    "Pechelallee 3287, 74218 Sangerhausen",
    "Mezi Sklady 393, 787 92 Miletín",
    "Τραγάνας 28,, ΤΚ 921 74 Γρεβενά",
    "ul. Brzozowa 10/03, 31-615 Bydgoszcz",
    "aleja Willowa 18, 89-650 Białystok",
    "Petőfi Sándor utca 126., H-7539 Drávamártonvárad",
    "Leviboulevard 904, 1593NY, Well",
    "Македонија 2а, 76539 Охрид",
    "Jalan Kapten Muslihat No. 746, Tarakan",
    "Štebijeva cesta 9b, 2879 Hrastnik",
    "Çağatay Caddesi 27, İzmir",
    "Bulevardul Gregorian Stănescu Nr. 92",
    "Stretto Faugno, 38 Piano 4, 33043, Purgessimo (UD)",
    "Vale de Rezende, 19, Palmeiras, 00339-075 Pastor",
    "Diagonal Cardenas 610, Depto. 218",
    "Avenida 4 N° 625 Local 1, Resistencia",
    "B08 L17 Henry Drive, Bailey Homes",
    "46 Jasmine Glade, New Anthony, NSW, 2991",
    "401 Richard Vista, Paultown, QC J8J 7B7",
    "PSC 5432, Box 3194, APO AP 65396",
    "9290 Brian Field Apt. 907, Scottborough",
]

PHONES = [
    "我的手机是15526018159，请联系我。",
    "15526018159 is my number, call me back.",
    "You can reach me at 001-687-329-1410x43473 after six.",
    "Mobile: 101.417.6893 ext. 558",
]

LOOK_ALIKES = [
    "我们在南京路有一家门店。",  # a street, no number
    "你知道3号能到吗？",  # the 3rd of the month
    "第3号窗口已开放。",
    "3番目の手順を確認してください。",  # the third step
    "東京都内では2-3日で届きます。",
    "서울시 지점으로 3일 안에 보내드립니다.",  # to the Seoul branch, in 3 days
    "저도 이메일로 5 영업일 기다렸어요.",
    "ถนนเส้นนี้ปิดปรับปรุง",  # this road is closed
    "15 ม.ค. 2567 เราจะปิดทำการ",  # a date
    "आपका ऑर्डर, लगभग 100000 ग्राहकों ने पसंद किया।",  # about 100000 customers
    "عن طريق الموقع خلال 5 أيام",  # through the website, in 5 days
    "يستغرق التوصيل من شارع التحلية 3 أيام",
    "רחוב הרצל סגור היום.",
    "Доставка по ул. Ленина занимает 2 дня.",
    "Площадь 50 м², парк рядом.",
    "In 2020, 12500 Customers joined us.",
    "Version 2 of the app is out.",
    "Ordered 3 items, 2 arrived, 1 missing.",
    "Our office at 100 Main Street is open.",  # a business's own address: published contacts say so
]


# 2026-12-07: each was admitted (Faker's addresses in "Please send the replacement to … before Friday." and
# "New delivery details: …": 110 of 3,330 whose street word or layout no pattern knows).
INTRODUCED = [
    "Please send the replacement to 5 Horokawa Reserve, Johnmouth 8225 before Friday.",
    "New delivery details: 21407 ترابين Falls, West غسّان, AS 68104",
    "Please ship it to Aleea Nemeș, Dobroesti, 895672.",
    "My delivery address is 130 Pukewhaka Quay, Edmondsland.",
    "Address: 33 Jan Smuts Ithafa, Boksburg",
    "We live at 976 Price Rise now.",
    "Courier it to 대구광역시 금천구 학동가 742 please.",
]
# The same words before a number that is no house number, or a name and a number with no such words before them.
NOT_INTRODUCED = [
    "Please send the replacement to us before Friday.",
    "We ship to 3 countries in Europe.",
    "Send it to HR 2 weeks before the start date.",
    "Please update to Windows 11 first.",
    "Send the logs to support, version 4.2 crashes.",
    "The delivery address is wrong on order 12.",
    "i moved to utah when i was 17",
]


@pytest.mark.parametrize("text", ADDRESSES + INTRODUCED)
def test_addresses_of_other_countries_are_refused(text):
    hit = find_personal_data(text, model=False)
    assert hit is not None and hit.kind == "street_address", hit


@pytest.mark.parametrize("text", PHONES)
def test_phones_with_an_extension_a_word_after_or_a_chinese_mobile_are_refused(text):
    hit = find_personal_data(text, model=False)
    assert hit is not None and hit.kind == "phone", hit


@pytest.mark.parametrize("text", LOOK_ALIKES[:-1] + NOT_INTRODUCED)
def test_the_same_words_and_numbers_without_an_address_stay_learnable(text):
    assert find_personal_data(text, model=False) is None


def test_a_published_address_stays_learnable_in_any_layout():
    published = ["100 Main Street", "南京路100号"]
    assert find_personal_data(LOOK_ALIKES[-1], published=published, model=False) is None
    assert find_personal_data("门店地址：南京路100号。", published=published, model=False) is None


def test_the_gate_refuses_an_address_of_another_country_as_personal_data():
    verdict = gate_check(
        text="Please send the replacement to 徳島県横浜市戸塚区入谷29丁目17番19号 before Friday."
    )
    assert not verdict.passed and verdict.reason == "personal_data", verdict


def test_a_published_address_after_those_words_stays_learnable():
    text = "Send returns to our store at 12 Harbour Road."
    assert find_personal_data(text, model=False) is not None
    assert find_personal_data(text, published=["12 Harbour Road"], model=False) is None


def test_what_is_found_after_those_words_is_the_whole_line():
    """The whole line, so that what removes it (a Client Brain issue's subject) leaves none of it behind."""
    text = "Please send the replacement to 5 Horokawa Reserve, Johnmouth 8225 before Friday."
    assert find_personal_data(text, model=False).value == "5 Horokawa Reserve, Johnmouth 8225"
