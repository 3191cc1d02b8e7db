"""A labelled topic set (issue 27): 20 distinct problems of an outdoor-gear shop, three tickets each, every
ticket in its own words, classified as a helpdesk classifies them (category, intent), each solved by a reply
that says what was done. Written for the consolidation test; no personal data (no names, no order numbers)."""

TOPICS = [
    (
        "orders",
        "damaged_item",
        [
            (
                "Tent arrived broken",
                "The pole snapped as soon as I unpacked it.",
                "We have shipped a replacement pole set at no cost.",
            ),
            (
                "Jacket zip torn on delivery",
                "The zip was ripped when the parcel came.",
                "We sent a prepaid label and dispatched a new jacket.",
            ),
            (
                "Damaged stove in the box",
                "The camping stove was dented out of the box.",
                "A replacement stove was dispatched today.",
            ),
        ],
    ),
    (
        "shipping",
        "delivery_delayed",
        [
            (
                "Where is my parcel",
                "It was due last week and still has not come.",
                "We escalated the delay with the carrier and upgraded the delivery to express.",
            ),
            (
                "Package late",
                "My delivery is five days overdue.",
                "We have escalated it with the courier and upgraded the shipping.",
            ),
            (
                "Still waiting for delivery",
                "Nothing has arrived yet, it is very late.",
                "The carrier was chased and we upgraded your parcel to next-day delivery.",
            ),
        ],
    ),
    (
        "orders",
        "wrong_item",
        [
            (
                "Wrong colour sent",
                "I ordered green boots and got red ones.",
                "We sent the green pair and a free return label for the red one.",
            ),
            (
                "Received someone else's item",
                "The box had a sleeping bag I never ordered.",
                "The right item has been dispatched and a return label sent.",
            ),
            (
                "Not what I ordered",
                "I got a small backpack instead of the large one.",
                "We dispatched the large backpack and sent a return label.",
            ),
        ],
    ),
    (
        "billing",
        "refund_status",
        [
            (
                "Refund not received",
                "I returned the tent two weeks ago and have no money back.",
                "We processed the refund; it reaches the card in three to five working days.",
            ),
            (
                "Still no refund",
                "My return was accepted but the refund never came.",
                "The refund has been processed and will show within five working days.",
            ),
            (
                "When will I get my money back",
                "The shop confirmed my return but I see nothing.",
                "We processed your refund today; banks take up to five days.",
            ),
        ],
    ),
    (
        "billing",
        "double_charge",
        [
            (
                "Charged twice",
                "My card shows the same payment two times.",
                "We refunded the duplicate charge straight away.",
            ),
            (
                "Duplicate payment",
                "I paid once but was billed twice.",
                "The second payment was refunded in full.",
            ),
            (
                "Billed two times for one order",
                "Two identical charges on my statement.",
                "We have refunded the extra charge.",
            ),
        ],
    ),
    (
        "orders",
        "cancel_order",
        [
            (
                "Cancel my order",
                "I no longer need the hiking poles.",
                "We cancelled the order before it shipped; nothing was charged.",
            ),
            (
                "Please stop my purchase",
                "I bought the wrong size and want to call it off.",
                "Your purchase was cancelled and the payment released.",
            ),
            (
                "I changed my mind",
                "Can you cancel what I ordered yesterday?",
                "We cancelled it; the hold on your card is released.",
            ),
        ],
    ),
    (
        "shipping",
        "change_address",
        [
            (
                "Change delivery address",
                "I moved and need the parcel sent elsewhere.",
                "We updated the delivery address before dispatch.",
            ),
            (
                "Wrong shipping address",
                "I typed the wrong street when ordering.",
                "The shipping address was updated with the carrier.",
            ),
            (
                "Send it to my office instead",
                "Please deliver to my workplace.",
                "We have updated the destination to your office.",
            ),
        ],
    ),
    (
        "account",
        "password_reset",
        [
            (
                "Forgot my password",
                "I cannot remember my password.",
                "We sent a password reset link to the address on the account.",
            ),
            (
                "Cannot log in",
                "My password does not work any more.",
                "A reset link has been sent; it expires in one hour.",
            ),
            (
                "Reset password please",
                "I need a new password for the shop.",
                "We have sent a password reset e-mail.",
            ),
        ],
    ),
    (
        "account",
        "account_locked",
        [
            (
                "Account locked",
                "It says my account is locked after failed attempts.",
                "We unlocked the account; sign in again now.",
            ),
            (
                "Locked out of my profile",
                "Too many tries and now I am blocked.",
                "Your account has been unlocked.",
            ),
            (
                "Blocked account",
                "The site blocked me from signing in.",
                "We have unlocked it and reset the attempt counter.",
            ),
        ],
    ),
    (
        "billing",
        "promo_code",
        [
            (
                "Discount code not working",
                "The code from the newsletter is rejected at checkout.",
                "We applied the discount to the order manually.",
            ),
            (
                "Voucher invalid",
                "My voucher says invalid.",
                "The voucher discount was applied to your basket by hand.",
            ),
            (
                "Coupon did not apply",
                "I entered the coupon but the price did not change.",
                "We have applied the coupon amount as a credit.",
            ),
        ],
    ),
    (
        "billing",
        "invoice",
        [
            (
                "Need an invoice",
                "My company needs a VAT invoice for the purchase.",
                "We have sent the VAT invoice as a PDF.",
            ),
            ("Invoice copy", "Can I get a copy of my invoice?", "A copy of the invoice was sent by e-mail."),
            (
                "Receipt for my purchase",
                "I need the receipt for my expenses.",
                "We sent the receipt as a PDF attachment.",
            ),
        ],
    ),
    (
        "orders",
        "exchange_size",
        [
            (
                "Boots too small",
                "The boots pinch; I need a bigger size.",
                "We arranged an exchange for the next size up.",
            ),
            (
                "Exchange for a larger size",
                "The jacket is tight, can I swap it?",
                "The exchange was arranged and a label sent.",
            ),
            (
                "Swap size",
                "Gloves are too big, I want a medium.",
                "We have arranged an exchange for a medium.",
            ),
        ],
    ),
    (
        "product",
        "warranty",
        [
            (
                "Warranty claim",
                "The headlamp stopped working after three months.",
                "The headlamp is under warranty; we replaced it.",
            ),
            (
                "Broke within warranty",
                "My stove burner failed after half a year.",
                "We replaced the burner under the two-year warranty.",
            ),
            (
                "Faulty after a few months",
                "The tent seam leaks after one season.",
                "Covered by warranty: a replacement tent was dispatched.",
            ),
        ],
    ),
    (
        "orders",
        "missing_part",
        [
            ("Missing piece", "The tent came without its pegs.", "We dispatched the missing pegs today."),
            (
                "Part not in the box",
                "There was no strap in the backpack box.",
                "The missing strap was sent separately.",
            ),
            (
                "Incomplete kit",
                "The stove kit lacks the gas adapter.",
                "We have sent the adapter that was missing.",
            ),
        ],
    ),
    (
        "returns",
        "return_label",
        [
            (
                "Need a return label",
                "How do I send the boots back?",
                "We sent a prepaid return label by e-mail.",
            ),
            ("Return shipping label", "I lost the label for my return.", "A new return label has been sent."),
            (
                "How to return an item",
                "I want to send back a jacket.",
                "We have sent a prepaid label; drop it at any post office.",
            ),
        ],
    ),
    (
        "account",
        "newsletter",
        [
            (
                "Unsubscribe",
                "Stop sending me the newsletter.",
                "We removed the address from the newsletter list.",
            ),
            (
                "Too many emails",
                "I get marketing mails every day.",
                "You have been removed from the marketing list; it takes a day.",
            ),
            (
                "Stop promotional mail",
                "Please take me off the mailing list.",
                "The address was removed from promotions.",
            ),
        ],
    ),
    (
        "shipping",
        "tracking",
        [
            (
                "Tracking number not working",
                "The tracking code shows nothing.",
                "We resent a working tracking link.",
            ),
            (
                "Cannot track my parcel",
                "The carrier site says the number is unknown.",
                "A corrected tracking link was resent.",
            ),
            (
                "Tracking link broken",
                "The link in the e-mail leads to an error.",
                "We have resent the tracking link.",
            ),
        ],
    ),
    (
        "billing",
        "payment_declined",
        [
            (
                "Payment declined",
                "My card is refused at checkout.",
                "We reset the payment session; the card went through on a retry.",
            ),
            (
                "Card rejected",
                "Checkout keeps rejecting my card.",
                "We fixed the checkout error; please try the card again.",
            ),
            (
                "Cannot pay",
                "The payment fails every time.",
                "The payment problem is fixed; the order went through.",
            ),
        ],
    ),
    (
        "product",
        "back_in_stock",
        [
            (
                "When is it back in stock",
                "The green tent is sold out.",
                "We booked a back-in-stock alert for the green tent.",
            ),
            (
                "Sold out item",
                "Will the large backpack come back?",
                "An alert was booked; it returns next month.",
            ),
            (
                "Restock date",
                "I want the stove that is unavailable.",
                "We have booked a restock notice for you.",
            ),
        ],
    ),
    (
        "billing",
        "gift_card",
        [
            (
                "Gift card balance",
                "How much is left on my gift card?",
                "We checked the card and sent the balance by e-mail.",
            ),
            (
                "Gift voucher not accepted",
                "The gift card is refused at checkout.",
                "The gift card was reactivated and works again.",
            ),
            ("Problem with gift card", "My gift card shows zero.", "We restored the gift card balance."),
        ],
    ),
]
