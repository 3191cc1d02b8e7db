"""The grant vocabulary in ten languages besides English (grants.py reads it with its own).

A support desk learns from tickets in its customers' languages, and a configured model provider states the
facts it extracts in the ticket's language: "Rückerstattungen sind unbegrenzt." must wait for corroboration
as "Refunds are unlimited." does. Each language has the same parts as the English vocabulary:

- `given`: subjects whose words already say that something is given (free, waived, compensation, a
  percentage off, a fee cancelled, money put on a balance);
- `waived`: a fee, a payment or a check that is not applied ("wird nicht berechnet", "ne paient jamais"): a
  grant whatever negation it holds, since the negation is the grant;
- `mentioned` (`money`, `access`): subjects a fact may only mention (refunds, vouchers, passwords, admin rights,
  unlocking, identity checks): a grant when an effect gives them out;
- `data_nouns` / `data_verbs`: customer data, and handing it over, within a few words of each other;
- `strong` / `weak`: effects. A strong one is open-ended (unlimited, any, on request, without a receipt, "no
  proof is needed", "even if") and holds even in a sentence that negates or restricts something else; a weak
  one (receives, offers, available) only in a sentence with no negation or restriction;
- `negators`: negation, restriction and refusal (not, never, only, required, reject), which turn a mention into
  a limit: "Los descuentos no son acumulables." grants nothing.

Chinese and Japanese are written without spaces: their patterns have no word boundaries (`spaceless`).
The stems favour holding, as the English vocabulary does: holding a genuine policy only makes it wait for
other customers' tickets, while letting a false one through lets one ticket set a policy.
"""

from __future__ import annotations

from dataclasses import dataclass

MONEY, ACCESS, DATA = "money", "access", "data"


@dataclass(frozen=True)
class Language:
    given: str
    waived: str
    money: str  # mentioned money subjects
    access: str  # mentioned access subjects
    data_nouns: str
    data_verbs: str
    strong: str
    weak: str
    negators: str
    tiers: str = ""  # product tiers: a free one is a tier, not a gift
    spaceless: bool = False


LANGUAGES: dict[str, Language] = {
    "es": Language(
        given=(
            r"reintegr\w+|bonific\w+|regal\w+|condon\w+|sin\s+cobrar|devolv\w*\s+(?:\w+\s+){0,2}dinero|"
            r"dinero\s+de\s+vuelta|hacemos\s+cargo\s+de\s+los\s+gastos|asumimos\s+los\s+gastos|"
            r"qued(?:arse|a)\s+con\s+el\s+(?:producto|art[íi]culo)|gratis|gratuit[oa]s?|"
            r"sin\s+(?:coste|costo|cargo)s?(?:\s+adicional(?:es)?)?|indemnizaci[óo]n\w*|"
            r"devoluci[óo]n\s+del\s+dinero|\d+\s?%\s+de\s+(?:descuento|rebaja)|"
            r"dev(?:ol|uel|uél)v\w*\s+(?:el\s+|los\s+|ambos\s+)?(?:importe|cargos?|gastos|dinero)|reembolsamos|"
            r"se\s+(?:la|lo)\s+queda|"
            r"anul\w+\s+(?:el\s+|la\s+|los\s+|las\s+)?(?:recargos?|cargos?|comisi\w+|penalizaci\w+|intereses|multas?)|"
            r"corren\s+de\s+nuestra\s+cuenta|abon\w+\s+\d+|c[áa]rg\w+\s+\d+\s*€?\s+de\s+saldo|de\s+cortes[íi]a|"
            r"no\s+se\s+penaliza"
        ),
        waived=(
            r"no\s+(?:le|les)\s+(?:vamos\s+a\s+)?cobr\w+|exent[oa]s?|condonad[oa]s?|"
            r"no\s+se\s+cobra(?:n|r[áa]n?)?|no\s+cobramos|sin\s+pagar|no\s+pag\w+|nunca\s+pag\w+"
        ),
        money=(
            r"compensaci[óo]n\w*|reembols\w*|descuentos?|cup[óo]n(?:es)?|vales?|bonos?|tarjetas?\s+regalo|"
            r"cr[ée]dito\s+en\s+tienda|saldo\s+a\s+favor"
        ),
        access=(
            r"(?:entrar|acceder)\s+(?:a|en)\s+la\s+cuenta|cuenta\s+del\s+titular|contraseñas?|"
            r"claves?\s+de\s+acceso|credenciales|(?:derechos|permisos|privilegios|acceso)\s+de\s+administrador|"
            r"desbloque\w+|comprobaci\w+|verificaci\w+\s+de\s+identidad|"
            r"(?:rol|permisos|derechos)\s+de\s+administrador|como\s+titular|cambi\w+\s+al\s+titular"
        ),
        data_nouns=(
            r"datos\s+de\s+contacto|n[úu]meros\s+de\s+tel[ée]fono|"
            r"historial\s+de\s+(?:compras|pedidos)\s+de\s+(?:cualquier|otros|todos\s+los)\s+clientes?|"
            r"(?:listas?|listados?|bases?\s+de\s+datos|datos|fichas?)\s+de\s+(?:los\s+|nuestros\s+)?clientes|"
            r"datos\s+personales|historial\s+de\s+pedidos|detalle\s+de\s+llamadas|historial\s+de\s+pagos|"
            r"facturas\s+del\s+cliente|direcciones\s+de\s+entrega|base\s+de\s+clientes|"
            r"direcci[óo]n\s+del\s+titular"
        ),
        data_verbs=(
            r"ced\w+|facilitamos|compart\w+|env[íi]\w*|export\w+|facilit\w+|entreg\w+|revel\w+|pasamos|pasa|"
            r"reenv\w+|remit\w+|p[áa]s\w+|dale"
        ),
        strong=(
            r"sin\s+(?:su\s+)?(?:autorizaci[óo]n|consentimiento|permiso)|sin\s+que\s+tenga\s+que\s+reclamar\w*|"
            r"ilimitad[oa]s?|sin\s+l[íi]mites?|siempre|cualquier(?:a)?|a\s+petici[óo]n|bajo\s+petici[óo]n|"
            r"previa\s+solicitud|quien\s+(?:lo\s+)?(?:pida|llame|solicite)|autom[áa]ticamente|"
            r"sin\s+(?:aprobaci[óo]n|verificaci[óo]n|recibo|ticket|preguntas)|aunque|aun\s+as[íi]|igualmente|"
            r"de\s+todas\s+formas|sin\s+importar|no\s+hace\s+falta|sin\s+(?:m[áa]s\s+)?comprobaci\w+|"
            r"sin\s+(?:pedir|exigir|que\s+(?:el\s+cliente\s+)?tenga\s+que)|con\s+solo\s+ped\w+|a\s+quien"
        ),
        weak=(
            r"ofr[ée]c\w+|dict\w+|dile|decir|reciben?|recibir[áa]n?|obtienen?|damos|ofrecemos|ofrece|otorg\w+|"
            r"conced\w+|disponibles?|derecho\s+a|regalamos|entregamos|tod[oa]s|le[ée]r\w*\s+por\s+tel[ée]fono"
        ),
        negators=(
            r"no|nunca|jam[áa]s|ni|tampoco|s[óo]lo|solamente|[úu]nicamente|requiere\w*|obligatori\w*|rechaz\w+|"
            r"deneg\w+"
        ),
        tiers=r"planes?|versi[óo]n|cuentas?|tarifas?|modalidad",
    ),
    "fr": Language(
        given=(
            r"passe\s+l'[ée]ponge|se\s+voi\w+\s+offrir|offr\w+\s+(?:\w+\s+){0,2}mois|"
            r"(?:pris|prise|prises)\s+en\s+charge\s+par\s+nos\s+soins|[àa]\s+notre\s+charge|"
            r"nous\s+prenons\s+en\s+charge|garder\s+(?:le\s+|l')(?:produit|article)|"
            r"(?:livraison|exp[ée]dition|port)\s+(?:\w+\s+){0,2}offert\w*|geste\s+commercial|"
            r"align\w+\s+(?:nos\s+)?prix|gratuit\w*|sans\s+frais|sans\s+(?:co[uû]t|suppl[ée]ment)|indemni\w+|"
            r"d[ée]dommag\w+|\d+\s?%\s+de\s+(?:r[ée]duction|remise)|rembours[ée]s?\s+int[ée]gralement|"
            r"rembours\w+\s+(?:de\s+)?\d+\s?%|rembours\w+\s+(?:la\s+totalit[ée]|int[ée]gralement)|le\s+garde|"
            r"annul\w+\s+(?:les\s+|la\s+|le\s+)?(?:frais|agios|p[ée]nalit[ée]s?|majorations?|int[ée]r[êe]ts)"
        ),
        waived=(
            r"ne\s+(?:lui|leur)\s+factur\w+\s+pas|exon[ée]r\w+|"
            r"frais\s+(?:[\w']+\s+){0,2}(?:sont|est)\s+offerts?|ne\s+(?:facturons|factur(?:e|ent))\s+pas|"
            r"ne\s+(?:sont|est)\s+pas\s+factur[ée]s?|ne\s+pai\w+\s+(?:jamais|pas|rien)|"
            r"ne\s+pay\w+\s+(?:jamais|pas|rien)|sans\s+payer|"
            r"(?:frais|co[ûu]ts?)\s+(?:\w+\s+){0,4}(?:sont|est)\s+offerts?"
        ),
        money=(
            r"rembours\w*|r[ée]ductions?|remises?|rabais|bons?\s+d'achat|coupons?|codes?\s+promo|"
            r"cartes?\s+cadeaux?|avoirs?|crédits?"
        ),
        access=(
            r"acc[eè]s\s+[àa]\s+la\s+messagerie|acc[eè]s\s+au\s+compte|mots?\s+de\s+passe|identifiants|"
            r"droits?\s+d'administrat\w+|acc[eè]s\s+administrateur|d[ée]bloqu\w+|"
            r"v[ée]rification\s+d'identit[ée]|contr[ôo]le\s+d'identit[ée]|droits\s+(?:d')?administrat\w+|"
            r"comme\s+(?:g[ée]rant|titulaire|propri[ée]taire|administrat\w+)|"
            r"espace\s+(?:bancaire|client)\s+en\s+ligne\s+de\s+l'autre"
        ),
        data_nouns=(
            r"adresses\s+de\s+livraison|historiques?\s+d'achats?|coordonn[ée]es\s+bancaires|"
            r"(?:listes?|fichiers?|bases?\s+de\s+donn[ée]es|donn[ée]es|coordonn[ée]es)\s+(?:des\s+|de\s+nos\s+)?clients|"
            r"donn[ée]es\s+personnelles|historiques?\s+des\s+commandes|relev[ée]s?\s+(?:de\s+compte|bancaires)|"
            r"historique\s+(?:des\s+trajets|complet\s+des\s+achats|des\s+achats)|"
            r"adresse\s+postale\s+du\s+titulaire"
        ),
        data_verbs=(
            r"c[ée]d\w+|transmis\w*|envo\w+|partag\w+|transm\w+|export\w+|communiqu\w+|divulgu\w+|fourni\w*|"
            r"donnons|donnent|donne|obten\w+|obtien\w+|envoy[ée]e?s?|donnez"
        ),
        strong=(
            r"sans\s+(?:son\s+|leur\s+)?(?:accord|autorisation|consentement|contr[ôo]le\w*)|"
            r"simplement\s+en\s+le\s+demandant|illimit[ée]\w*|sans\s+limites?|toujours|n'importe\s+quel\w*|"
            r"quiconque|sur\s+(?:simple\s+)?demande|automatiquement|"
            r"sans\s+(?:justificatif|ticket|v[ée]rification|approbation|condition)|[àa]\s+volont[ée]|"
            r"tous\s+les\s+clients|toutes\s+les\s+commandes|m[êe]me\s+si|quand\s+m[êe]me|malgr[ée]|"
            r"peu\s+importe|quel(?:le)?s?\s+que\s+soi(?:t|ent)|aucun\s+justificatif|"
            r"n'est\s+pas\s+(?:exig[ée]e?|demand[ée]e?|n[ée]cessaire|requise?)|sans\s+(?:exiger|demander)|"
            r"chaque\s+fois|[àa]\s+tout\s+(?:nouveau\s+)?client|toute\s+personne"
        ),
        weak=(
            r"propos\w+|communiqu\w+|donnez|indiquez|re[çc]oi\w*|obtien\w*|offr\w+|offert\w*|accord[ée]\w*|"
            r"donnons|b[ée]n[ée]fici\w+|droit\s+[àa]|disponibles?|tou(?:te)?s?"
        ),
        negators=(
            r"doit|doivent|faut|ne|n'|jamais|aucun\w*|pas|seulement|uniquement|requis\w*|obligatoire\w*|"
            r"refus\w+|rejet\w+"
        ),
        tiers=r"offres?|formules?|versions?|comptes?|abonnements?|forfaits?",
    ),
    "de": Language(
        given=(
            r"erstatten|gutschreiben|schreib\w*\s+(?:\w+\s+){0,4}gut|geschenkt|geld\s+(?:\w+\s+){0,3}zur[üu]ck|"
            r"[üu]bernehm\w*\s+(?:wir\s+)?(?:die\s+)?kosten|kosten\s+[üu]bernehm\w*|"
            r"(?:ware|artikel|produkt)\s+(?:\w+\s+)?behalten|kostenlos\w*|gratis|kostenfrei\w*|umsonst|"
            r"ohne\s+(?:aufpreis|zusatzkosten|kosten|geb[üu]hr\w*)|geld[- ]zur[üu]ck|\d+\s?%\s+rabatt|behalten|"
            r"zur[üu]ckgezahlt|zur[üu]ckbekomm\w+|(?:[üu]bernehmen|zahlen)\s+wir|"
            r"schreib\w*\s+(?:\S+\s+){0,5}gut|"
            r"(?:geb[üu]hr\w*|zinsen|strafe|s[äa]umniszuschlag\w*|mahngeb[üu]hr\w*)\s+(?:\w+\s+){0,2}storn\w+|"
            r"storn\w+\s+(?:\w+\s+){0,2}(?:geb[üu]hr\w*|zinsen|mahngeb[üu]hr\w*)|kulanzgutschrift"
        ),
        waived=(
            r"nicht\s+in\s+rechnung|erlassen|entf[äa]ll\w+|(?:wird|werden)\s+nicht\s+berechnet|"
            r"berechnen\s+(?:wir\s+)?keine|"
            r"zahl\w+\s+(?:\w+\s+){0,4}(?:kein\w*|nichts|nie)\s+(?:\w+\s+)?(?:porto|geb[üu]hr\w*|versand\w*|kosten)|"
            r"nichts\s+zahlen|ohne\s+zu\s+zahlen"
        ),
        money=(
            r"entsch[äa]digung\w*|r[üu]ckerstatt\w*|erstatt\w+|r[üu]ckzahl\w*|rabatt\w*|nachl[äa]ss\w*|"
            r"gutschein\w*|gutschrift\w*|coupons?|aktionscodes?|geschenkkarten?|guthaben|kulanz\w*"
        ),
        access=(
            r"zugriff\s+auf\s+(?:das|ein|sein|ihr)\s+konto|passw[öo]rt\w*|kennw[öo]rt\w*|zugangsdaten|"
            r"administrator(?:en)?rechte|adminrechte|administratorzugang|entsperr\w+|identit[äa]tspr[üu]fung|"
            r"ausweis\w*|als\s+(?:inhaber|eigent[üu]mer|administrator)\w*|zugang\s+zum\s+\w+|vorlesen"
        ),
        data_nouns=(
            r"kontaktdaten|bankverbindung\w*|zahlungsdaten|kontodaten|bankdaten|kreditkartendaten|"
            r"kundenlisten?|kundendaten|kundendatenbank|kundenkartei|personenbezogenen?\s+daten|"
            r"bestellhistorie|bestellhistorie|verbrauchsdaten|zahlungshistorie|vertragsdaten|arztberichte"
        ),
        data_verbs=(
            r"weiter|erhalten|weitergeb\w*|weitergegeben|teilen|teilt|geteilt|send\w+|geschickt|schick\w+|"
            r"export\w+|herausgeb\w+|herausgegeben|[üu]bermittel\w+|mitgeteilt|geben\s+(?:\w+\s+){0,6}weiter|"
            r"abfragen|leite\w*"
        ),
        strong=(
            r"ohne\s+(?:seine\s+|ihre\s+)?(?:zustimmung|einwilligung|erlaubnis)|unaufgefordert|"
            r"sobald\s+\w+\s+danach\s+fragen|unbegrenzt\w*|unbeschr[äa]nkt\w*|"
            r"ohne\s+(?:limit|grenze|begrenzung|nachweis|beleg|pr[üu]fung|genehmigung|kassenbon)|immer|"
            r"jede[rnsm]?|auf\s+(?:wunsch|anfrage|nachfrage)|automatisch|jederzeit|auch\s+wenn|trotzdem|"
            r"dennoch|unabh[äa]ngig|egal|braucht\s+es\s+kein\w*|kein\w*\s+\w+\s+(?:n[öo]tig|notwendig|erforderlich)|"
            r"(?:ist\s+)?nicht\s+(?:n[öo]tig|notwendig|erforderlich)|nicht\s+weiter\s+ausweisen|"
            r"ohne\s+(?:nachzufragen|zu\s+pr[üu]fen)|jedem|wer\s+die"
        ),
        weak=(
            r"nenn\w+|mitteil\w*|sag\w*|erh[äa]lt|erhalten|bekomm\w+|bekommt|gew[äa]hr\w+|biet\w+|geben|gibt|"
            r"verf[üu]gbar|anspruch|alle|vorlesen|diktier\w+|durchgeben"
        ),
        negators=r"nicht|nie|niemals|kein\w*|nur|erforderlich|ausgeschlossen|lehn\w+|abgelehnt",
        tiers=r"tarif\w*|basistarif|version|konto|abo\w*|paket",
    ),
    "it": Language(
        given=(
            r"stornat\w+|abbuonat\w+|senza\s+pagare|restitui\w*\s+(?:i\s+)?soldi|soldi\s+indietro|"
            r"a\s+(?:nostro\s+carico|carico\s+nostro)|tenere\s+(?:il\s+)?(?:prodotto|articolo)|"
            r"(?:penal\w+|spese|commission\w+)\s+(?:\w+\s+){0,3}annullat\w+|gratuit\w*|gratis|"
            r"senza\s+costi?(?:\s+aggiuntivi)?|a\s+costo\s+zero|omaggio|risarciment\w*|indennizz\w*|"
            r"\d+\s?%\s+di\s+sconto|rimborsat\w+\s+per\s+intero|accredit(?:a|ano|iamo|are|at[oaie])\b|"
            r"restituiamo|storn\w+\s+(?:la\s+|le\s+|il\s+)?(?:mora|penal\w+|commission\w+|interessi|spese)|"
            r"non\s+viene\s+applicat\w+"
        ),
        waived=(
            r"non\s+addebit\w+|esent\w*|non\s+(?:viene|vengono)\s+addebitat\w*|non\s+addebitiamo|non\s+pag\w+|"
            r"senza\s+pagare"
        ),
        money=(
            r"rimbors\w*|scont\w*|coupon|buon[oi]|codici?\s+promo\w*|carte?\s+regalo|"
            r"credito\s+(?:in\s+negozio|sul\s+conto)"
        ),
        access=(
            r"accedere\s+all'account|password|credenziali|(?:diritti|privilegi)\s+di\s+amministra\w+|sblocc\w+|"
            r"controll\w+\s+d'identit\w+|(?:permessi|diritti|privilegi)\s+di\s+amministra\w+|"
            r"come\s+(?:titolare|intestatario|amministratore)|accedere\s+all'area\s+clienti"
        ),
        data_nouns=(
            r"indirizzi\s+e-?mail\s+dei\s+clienti|dati\s+di\s+pagamento|"
            r"dati\s+(?:della\s+)?carta(?:\s+di\s+(?:pagamento|credito))?|"
            r"(?:elenco|lista|database|dati|anagrafica)\s+(?:dei\s+|di\s+)?clienti|dati\s+personali|"
            r"storico\s+(?:degli\s+)?ordini|dati\s+di\s+contatto\s+dei\s+clienti|dettaglio\s+del\s+traffico|"
            r"elenco\s+delle\s+prenotazioni|fatture\s+del\s+cliente|indirizzo\s+di\s+residenza"
        ),
        data_verbs=(
            r"cedut\w+|condivi\w+|invi\w+|esport\w+|forni\w+|comunic\w+|divulg\w+|trasmett\w+|dia(?:mo)?|"
            r"inoltr\w+|ricev\w+"
        ),
        strong=(
            r"senza\s+(?:alcuna\s+)?(?:autorizzazione|consenso|permesso)|illimitat\w*|senza\s+limit[ei]|sempre|"
            r"qualsiasi|qualunque|chiunque|su\s+richiesta|automaticamente|"
            r"senza\s+(?:scontrino|ricevuta|verifica|approvazione|domande)|anche\s+se|comunque|a\s+prescindere|"
            r"indipendentemente|non\s+serve|non\s+(?:[èe]\s+)?necessari\w+|senza\s+(?:chiedere|richiedere)|"
            r"su\s+semplice\s+richiesta|facendone\s+richiesta|chiunque|a\s+chi"
        ),
        weak=(
            r"comunic\w+|ricev\w+|ottien\w+|offriamo|offre|offert\w*|concess\w*|conced\w+|diritto|"
            r"disponibil\w+|riconosc\w+|diamo|tutti|tutte"
        ),
        negators=r"non|mai|nessun\w*|solo|soltanto|obbligatori\w*|rifiut\w+|respin\w+",
        tiers=r"piani|piano|versione|account|abbonament\w+|tariff\w+",
    ),
    "pt": Language(
        given=(
            r"ressarc\w+|perdoad\w+|por\s+nossa\s+conta|dinheiro\s+de\s+volta|devolv\w*\s+o\s+dinheiro|"
            r"cobr\w*\s+(?:as\s+)?despesas|arcamos\s+com|ficar\s+com\s+o\s+produto|gr[áa]tis|gratuit\w*|"
            r"sem\s+(?:custos?|taxas?|cobran[çc]a)(?:\s+adiciona(?:l|is))?|indeniza[çc]\w*|"
            r"compensa[çc](?:[ãa]o|[õo]es)|\d+\s?%\s+de\s+desconto|devolvid\w+\s+integralmente|"
            r"(?:retir|cancel|anul|estorn)\w+\s+(?:os\s+|as\s+|a\s+|o\s+)?(?:juros|multas?|taxas?|tarifas?|encargos?)|"
            r"credit\w+\s+R?\$?\s?\d+|dinheiro\s+de\s+volta"
        ),
        waived=(
            r"n[ãa]o\s+cobr\w+|isent[oa]s?|n[ãa]o\s+(?:[ée]|s[ãa]o)\s+cobrad[oa]s?|n[ãa]o\s+cobramos|"
            r"n[ãa]o\s+pag\w+|sem\s+pagar|nunca\s+pag\w+"
        ),
        money=(
            r"reembols\w*|estorn\w+|descont\w*|cupo(?:m|ns)|vales?|vouchers?|cart(?:[ãa]o|[õo]es)[\s-]presente|"
            r"cr[ée]dito\s+na\s+loja"
        ),
        access=(
            r"acesso\s+[àa]\s+conta|conta\s+do\s+titular|senhas?|credenciais|"
            r"(?:direitos|permiss[õo]es|acesso)\s+de\s+administrador|desbloque\w+|"
            r"valida[çc][ãa]o\s+de\s+identidade|virar\s+administrador|como\s+titular"
        ),
        data_nouns=(
            r"endere[çc]os\s+de\s+entrega|dados\s+de\s+pagamento|"
            r"(?:listas?|bases?\s+de\s+dados|dados|cadastros?)\s+(?:de\s+|dos\s+)?clientes|dados\s+pessoais|"
            r"hist[óo]rico\s+de\s+pedidos|dados\s+de\s+contato\s+dos\s+clientes|extrato\s+da\s+conta|"
            r"hist[óo]rico\s+de\s+pagamentos|notas\s+fiscais\s+do\s+cliente|endere[çc]o\s+do\s+titular"
        ),
        data_verbs=(
            r"repass\w+|informad\w+|compartilh\w+|partilh\w+|envi\w+|export\w+|forne[çc]\w+|divulg\w+|pass\w+|"
            r"encaminh\w+|receb\w+"
        ),
        strong=(
            r"sem\s+(?:autoriza[çc][ãa]o|consentimento|permiss[ãa]o|comprovativo)|a\s+qualquer\s+pessoa|"
            r"ilimitad\w*|sem\s+limites?|sempre|qualquer|quem\s+(?:pedir|solicitar|ligar)|a\s+pedido|"
            r"mediante\s+(?:pedido|solicita[çc][ãa]o)|automaticamente|"
            r"sem\s+(?:recibo|comprovante|verifica[çc][ãa]o|aprova[çc][ãa]o)|mesmo\s+que|mesmo\s+se|"
            r"ainda\s+que|de\s+qualquer\s+forma|independentemente|em\s+nenhuma\s+hip[óo]tese|"
            r"n[ãa]o\s+(?:[ée]\s+)?precis\w+|n[ãa]o\s+(?:[ée]\s+)?necess[áa]ri\w+|sem\s+(?:exigir|pedir)|"
            r"s[óo]\s+pedindo|quem\s+ligar"
        ),
        weak=(
            r"ofere[çc]a|inform\w+|diga|receb\w+|ganh\w+|oferec\w+|conced\w+|damos|dispon[íi]ve(?:l|is)|"
            r"direito|tod[oa]s"
        ),
        negators=r"n[ãa]o|nunca|jamais|nenhum\w*|apenas|somente|obrigat[óo]ri\w*|exig\w+|recus\w+|rejeit\w+",
        tiers=r"planos?|vers[ãa]o|contas?|assinaturas?",
    ),
    "nl": Language(
        given=(
            r"teruggestort|terugstorten|(?:stort|betal|krijg)\w*\s+(?:\w+\s+){0,6}terug|vergoed\w*|"
            r"(?:product|artikel)\s+(?:\w+\s+)?houden|mag\s+het\s+\w+\s+houden|gratis|kosteloos|"
            r"zonder\s+(?:extra\s+)?kosten|voor\s+niets|compensatie|schadevergoeding|geld[- ]terug|"
            r"\d+\s?%\s+korting|schrijven\s+(?:we\s+)?(?:\S+\s+){0,3}bij|"
            r"(?:schrap|annuleer)\w*\s+(?:de\s+)?\w*(?:kosten|boete|rente)"
        ),
        waived=(
            r"niet\s+in\s+rekening|rekenen\s+(?:we\s+|wij\s+)?(?:\w+\s+){0,4}geen|kwijtgescholden|vervalt|"
            r"vervallen|(?:wordt|worden)\s+niet\s+(?:in\s+rekening\s+gebracht|berekend)|"
            r"rekenen\s+(?:wij\s+|we\s+)?geen|betal\w+\s+(?:\w+\s+){0,2}(?:geen|niets|nooit)|"
            r"hoeven\s+(?:\w+\s+)?niet\s+te\s+betalen"
        ),
        money=r"terugbetal\w*|restitutie|korting\w*|tegoedbon\w*|cadeaubon\w*|vouchers?|coupons?|tegoed",
        access=(
            r"inlogg\w*|wachtwoord\w*|inloggegevens|beheerdersrechten|adminrechten|beheerderstoegang|"
            r"ontgrendel\w*|legitimeren|id-controle|(?:maak|maken)\s+\w+\s+(?:\w+\s+)?eigenaar|eigenaar\s+van|"
            r"toegang\s+tot|doorgeven"
        ),
        data_nouns=(
            r"telefoonnummers\s+van\s+(?:onze\s+)?klanten|betaalgegevens|bankgegevens|klantenlijst\w*|"
            r"klantgegevens|klantenbestand|persoonsgegevens|bestelgeschiedenis|verbruiksgegevens|declaraties|"
            r"facturen\s+van\s+de\s+klant|huisadres"
        ),
        data_verbs=(
            r"mail\w*|krijgen|delen|deelt|gedeeld|stu(?:u)?r\w*|geef|gestuurd|verstuur\w*|exporte\w+|"
            r"verstrek\w+|doorgegeven|doorgeven|geven|stuur\s+(?:\w+\s+){0,5}door|zien"
        ),
        strong=(
            r"zonder\s+toestemming|onbeperkt\w*|zonder\s+(?:limiet|grens|bon|bewijs|controle|goedkeuring)|"
            r"altijd|elke|ieder\w*|iedereen|op\s+verzoek|automatisch|wie\s+(?:erom\s+)?vraagt|ook\s+als|"
            r"zelfs\s+als|toch|ongeacht|hoe\s+dan\s+ook|(?:is\s+)?niet\s+nodig|hoef\s+je\s+geen|"
            r"hoeft\s+(?:zich\s+)?(?:\w+\s+)?niet|zonder\s+dat|zodra\s+iemand|wie\s+het"
        ),
        weak=(
            r"doorgeven|geef|geven|krijg\w*|ontvang\w*|bied\w+|geboden|toegekend|verleend|beschikbaar|"
            r"recht\s+op|alle"
        ),
        negators=r"niet|nooit|geen|alleen|slechts|vereist|verplicht|wijs\w*|weiger\w*",
        tiers=r"abonnement\w*|versie|account|pakket\w*|plan",
    ),
    "pl": Language(
        given=(
            r"zwracamy|umorzon\w+|na\s+nasz\s+koszt|anulujemy|pokrywa\w*\s+koszt\w*|"
            r"zatrzyma\w*\s+(?:produkt|towar)|anul\w+\s+(?:\w+\s+){0,2}faktur\w*|"
            r"bez\s+dodatkowych\s+(?:opłat\w*|kosztów)|darmow\w+|bezpłatn\w+|za\s+darmo|gratis|"
            r"bez\s+(?:opłat\w*|kosztów|dopłat\w*)|rekompensat\w+|odszkodowa\w+|\d+\s?%\s+(?:rabatu|zniżki)|"
            r"oddajemy|dorzucamy|anul\w+\s+(?:\w+\s+)?(?:opłat\w+|odset\w+|kar\w+)|"
            r"(?:opłat\w+|odset\w+)\s+(?:\w+\s+){0,4}anul\w+|dopis\w+\s+\d+|zwróć\s+pełną"
        ),
        waived=(
            r"zwolnion\w+\s+z\s+opłat\w*|nie\s+pobieramy|nie\s+(?:jest|są)\s+pobieran\w+|umarz\w+|"
            r"nie\s+płac\w+|bez\s+płacenia"
        ),
        money=r"zwrot\w*|rabat\w*|zniżk\w+|kupon\w*|bon\w*\s+podarunkow\w+|kod\w*\s+rabatow\w+|bon(?:y|u|ów|em)?",
        access=(
            r"logowa\w*\s+się\s+na\s+konto|konto\s+posiadacza|hasł\w+|dane\s+logowania|"
            r"(?:uprawnieni\w+|prawa)\s+administrator\w*|odblok\w+|weryfikacj\w+\s+tożsamości|"
            r"rol\w+\s+właściciel\w*|podać\s+mu\s+je"
        ),
        data_nouns=(
            r"dane\s+kontaktowe(?:\s+klientów)?|numery\s+kart\w*(?:\s+\w+)?\s+klientów|"
            r"(?:list\w*|baz\w*|dane)\s+(?:wszystkich\s+)?klientów|dane\s+osobowe|histori\w+\s+zamówień|"
            r"billing\s+(?:jego\s+)?połączeń|histori\w+\s+płatności|wyciąg\w*\s+klienta|adres\s+zamieszkania"
        ),
        data_verbs=r"wyślij\w*|udostępn\w+|wysył\w+|wysła\w+|przekaz\w+|przekaż\w+|eksport\w+|podaj\w+|otrzyma\w*",
        strong=(
            r"bez\s+(?:jego\s+|jej\s+)?(?:zgody|upoważnienia)|każdemu|kto\s+o\s+to\s+popros\w+|"
            r"nieograniczon\w+|bez\s+(?:limitu|ograniczeń|paragonu|weryfikacji|zgody)|zawsze|każd\w+|dowoln\w+|"
            r"na\s+(?:życzenie|prośbę|żądanie)|automatycznie|nawet\s+jeśli|nawet\s+gdy|mimo\s+że|mimo\s+to|"
            r"niezależnie|bez\s+względu|nie\s+(?:jest\s+)?potrzebn\w+|nie\s+musi|bez\s+(?:żądania|sprawdzania)|"
            r"od\s+ręki|każdemu"
        ),
        weak=(
            r"zaproponuj\w*|proponuj\w*|podaj\w*|przekaż\w*|otrzyma(?:ją|sz)?\b|otrzymuj\w+|dostaj\w+|"
            r"dostan\w+|przyzna\w+|oferuj\w+|dajemy|daje|dostępn\w+|prawo\s+do|wszystk\w+|poda[ćj]\w*"
        ),
        negators=r"nie|nigdy|żadn\w+|tylko|wyłącznie|wymagan\w+|odrzuc\w+|odmaw\w+|odmów\w+",
        tiers=r"plan\w*|pakiet\w*|wersj\w+|kont\w+|abonament\w*",
    ),
    "ru": Language(
        given=(
            r"возвращаем\w*|списываем|деньги\s+возвраща\w*|возвраща\w*\s+деньги|верн\w*\s+деньги|"
            r"за\s+наш\s+сч[её]т|оставить\s+(?:себе\s+)?товар|бесплатн\w*|даром|"
            r"без\s+(?:оплаты|доплат\w*|комиссии)|компенсаци\w*|возмещени\w*|\d+\s?%\s+скидк\w*|"
            r"скидк\w*\s+\d+\s?%|компенсиру\w+|возвраща\w+|"
            r"отмен\w+\s+(?:\w+\s+)?(?:пен\w+|штраф\w*|комисси\w+)|(?:за|на)числ(?:им|яем|ить|ите|ен\w*)|"
            r"полный\s+возврат"
        ),
        waived=(
            r"не\s+выставля\w+\s+(?:\w+\s+){0,2}сч[её]т|не\s+взима(?:ется|ются|ем)|не\s+бер[её]м|"
            r"не\s+списыва(?:ется|ются|ем)|не\s+плат\w+|без\s+оплаты"
        ),
        money=(
            r"возврат\w*|верн[её]м\s+деньги|скидк\w*|купон\w*|промокод\w*|ваучер\w*|подарочн\w+\s+карт\w*|"
            r"бонус\w*|баллы"
        ),
        access=(
            r"личн\w+\s+кабинет\w*|входить\s+в\s+(?:аккаунт|кабинет)|парол\w*|уч[её]тные\s+данные|"
            r"прав\w*\s+администратор\w*|админ\w*\s+(?:права|доступ)|разблокир\w+|подтвержда\w+\s+личность|"
            r"владельц\w+|сохраняют\s+доступ|продиктова\w+"
        ),
        data_nouns=(
            r"реквизиты\s+карт\w*(?:\s+\w+)?(?:\s+клиентов)?|истори\w+\s+(?:покупок|заказов)(?:\s+клиентов)?|"
            r"плат[её]жн\w+\s+данн\w+|(?:список|списки|базу|база|базы|данные)\s+(?:всех\s+)?клиентов|"
            r"персональные\s+данные|истори\w+\s+заказов|контактные\s+данные\s+покупателей|"
            r"детализаци\w+\s+звонков|выписк\w+|адрес\s+клиента"
        ),
        data_verbs=(
            r"переда\w+|отправ\w+|пересыла\w+|выгруж\w+|экспорт\w*|сообща\w+|раскрыва\w+|предоставля\w+|"
            r"перешл\w+|сообщи\w*|предоставля\w+|получить"
        ),
        strong=(
            r"без\s+(?:его\s+|её\s+|ее\s+|их\s+)?(?:согласия|разрешения)|по\s+первой\s+просьбе|неограниченн\w*|"
            r"не\s+ограничен\w*|без\s+(?:ограничений|лимита|чека|проверки|одобрения)|всегда|люб\w+|кажд\w+|"
            r"по\s+(?:запросу|требованию|просьбе)|автоматически|даже\s+если|несмотря\s+на|в\s+любом\s+случае|"
            r"независимо|не\s+нуж\w+|не\s+требуя|без\s+(?:чека|проверки)"
        ),
        weak=(
            r"предлож\w+|сообщ\w+|скаж\w+|получа\w+|получ\w+|предоставля\w+|предостав\w+|дают|да[её]м|выда\w+|"
            r"доступн\w+|право\s+на|могут|все\w*|всем|продиктова\w+"
        ),
        negators=(
            r"не|никогда|ни|нет|только|обязательн\w*|требуется|недоступ\w*|нельзя|невозможно|отклон\w+|"
            r"отказ\w+"
        ),
        tiers=r"тариф\w*|верси\w+|план\w*|пакет\w*|аккаунт\w*",
    ),
    "zh": Language(
        given=(
            r"免单|报销|退还|返还|由我们承担|我们承担|我方承担|免费|包邮|免运费|不收(?:取)?(?:任何)?费用|补偿|赔偿|全额退款|打[一二三四五六七八九\d]折|全免|充\d+元|"
            r"往账户里充|免掉|无门槛优惠券"
        ),
        waived=r"免除|免收|减免|不收取|不(?:再)?收费|不用寄回|也不用",
        money=r"退款|退钱|返款|折扣|优惠券|代金券|优惠码|礼品卡|积分|优惠",
        access=r"登录.{0,4}账户|密码|登录凭据|账号信息|管理员权限|管理权限|解锁|设为.{0,8}所有者|核实身份",
        data_nouns=r"联系方式|银行卡信息|购买记录|消费记录|客户名单|客户资料|客户数据|客户信息|个人信息|订单记录|用户数据|通话详单|缴费记录|发票和消费明细|住址",
        data_verbs=r"索取|分享|发送|提供|导出|透露|转发|共享|发给|查询|获取|告诉",
        strong=(
            r"无需.{0,8}同意|未经.{0,8}同意|无需凭证|按.{0,6}要求|无限制|不限|无上限|无限|总是|一律|始终|任何|随时|应要求|按要求|只要(?:提出|要求|申请)|即使|即便|"
            r"就算|无论|不管|照样|仍然|不需要|无需|不用|凡是|只要|任何人"
        ),
        weak=r"发放|发一张|发给|赠|送给|授予|告诉|告知|可以获得|获得|可获|赠送|提供|给予|享有|享受|所有|全部",
        negators=r"切勿|请勿|不得|严禁|勿|不|没|未|绝不|禁止|仅|只(?!要)|须|需要|拒绝|不予",
        tiers=r"版|套餐|账户|计划",
        spaceless=True,
    ),
    "ja": Language(
        given=(
            r"補填|サービスしています|返金(?:いた)?します|当社が負担|弊社が負担|負担いたします|無料|無償|タダ|全額返金|\d+\s?%\s*(?:オフ|引き)|全額返金|"
            r"料金をいただいておりません|ポイントを付与|取り消して"
        ),
        waived=r"請求しないで|免除|請求(?:いた)?しません|いただきません|返品は不要",
        money=r"補償|賠償|返金|払い戻し|払戻|割引|クーポン|値引き|ギフトカード|商品券|ポイント",
        access=r"アカウントにログイン|パスワード|認証情報|ログイン情報|管理者権限|管理権限|ロック(?:を)?解除|所有者に変更|本人確認は行いません",
        data_nouns=r"連絡先|購入履歴|(?:クレジット)?カード情報|顧客リスト|顧客名簿|顧客データ|顧客情報|個人情報|注文履歴|通話明細|利用明細|請求書|住所",
        data_verbs=r"送っ|送る|共有|送付|送信|提供|エクスポート|開示|お渡し|お送り|お知らせ|転送|伝えて",
        strong=(
            r"同意なし|同意なく|領収書がなくても|無制限|制限なし|上限なし|いつでも|常に|全員|どなた(?:でも|にも)|ご希望(?:の|に応じて|があれば)|リクエスト|自動的|"
            r"でも(?:、|構いません)|にもかかわらず|関係なく|なくても|誰でも|どなたにでも"
        ),
        weak=r"付与|お伝え|伝え|教え|お送り|差し上げ|進呈|提供|受け取|もらえ|いただけ|できます|可能|すべて|全て",
        negators=r"ない|(?<!かまい)(?<!構い)ません|上限|禁止|のみ|限り|必要|お断り|断って|拒否",
        tiers=r"プラン|版|アカウント|コース",
        spaceless=True,
    ),
}


def _join(parts: list[str]) -> str:
    return "|".join(f"(?:{p})" for p in parts if p)


def bounded(alternatives: str, spaceless: bool) -> str:
    """`alternatives` as whole words (or, in a script without spaces, as they stand)."""
    return f"(?:{alternatives})" if spaceless else rf"(?<!\w)(?:{alternatives})(?!\w)"


def merged(part: str) -> str:
    """One alternation of `part` ("given", "strong", ...) over every language, each bounded as its script is."""
    return _join([bounded(getattr(lang, part), lang.spaceless) for lang in LANGUAGES.values()])
