"""Common function words per language, as written (``argue.text.words`` normalises them).

A few dozen per language: enough that "the", "der", "и" or "के" do not make two unrelated
sentences look alike. The lists are used together (a claim's language is not detected), so a
function word that is also a common content word in another language is left out: French/Spanish
``son`` and French ``car`` (English), German ``war``, ``hat``, ``man`` and ``bin``, Spanish ``sin``
and ``era``.
"""

from __future__ import annotations

RAW_STOPWORDS: dict[str, str] = {
    "en": """
        a about after all also an and any are as at be been being but by can could did do does
        each for from had has have he her here him his how i if in into is it its just may me
        might more most my no not of on only or other our over own same she should so some such
        than that the their them then there these they this those to under up us very was we
        were what when where which who whom why will with would you your
    """,
    "fr": """
        à au aux avec ce ceci cela ces cet cette comme dans de des donc dont du elle elles en et
        été être est il ils je la le les leur leurs lui ma mais me même mes moi mon ne ni nos
        notre nous on ont ou où par pas plus pour qu que qui quoi sa sans se ses si sont sous sur
        ta te tes toi ton tous tout toute toutes tu un une vos votre vous y ça
    """,
    "de": """
        aber als am an auch auf aus bei bist da dann dass daß dem den denn der des dich die dir
        doch dort du durch ein eine einem einen einer eines er es euch für gegen haben ich ihr
        im in ist kann kein keine mich mir mit muss nach nicht noch nur ob oder ohne schon sehr
        sich sie sind so soll über um und uns unter von vor was welche welcher welches wenn wer
        werden wie wir wird wo wurde wurden zu zum zur
    """,
    "es": """
        a al algo como con cuando cuál de del donde dónde el él ella ellas ellos en entre es esa
        ese eso esta está están este esto estos fue ha han hay la las le les lo los más me mi
        mis muy no nos o para pero por porque qué quien quién se ser si sí sobre su sus también
        tan te todo todos tu tú un una unas uno unos y ya yo
    """,
    "ru": """
        а без бы был была были было быть в вам вас вот все всё вы где да для до его её ее если
        есть ещё еще же за и из или им их к как когда кто ли мне мы на над не него нет ни но
        о об он она они оно от по под при про с со так там то только ты у уже чем что чтобы
        эта эти это этот я
    """,
    "el": """
        αλλά αν από αυτά αυτή αυτό αυτός για δεν είναι ένα επίσης η ή ήταν θα και με μη μην μια
        μία να ο οι όπως ότι πολύ που πως σε στα στη στην στις στο στον στους τα την της τη το
        τον του τους των ως
    """,
    "hi": """
        इस उस एक और कर कि की के को जो तक तो था थी थे ने पर भी में यह या रहा रही लिए वह से
        हम है हैं हो ही
    """,
}
