"""Mixed-script sentences the benchmarks build their ~1 MB texts from."""

SENTENCES = [
    "The quick brown fox jumps over the lazy dog. ",
    "Grounding metadata cites sources by byte offset. ",
    "Café crème, naïve façade, Zürich, Ångström, São Paulo. ",
    "日本語のテキストと中文文本\uff0c한국어 텍스트도 있습니다。",
    "שלום עולם, مرحبا بالعالم، سلام. ",
    "Thumbs 👍🏽👍🏿, family 👨‍👩‍👧‍👦, flags 🇯🇵🇫🇷, kiss 👩‍❤️‍💋‍👨. ",
    "Combining: e\u0301 a\u0308 n\u0303 q\u0323\u0307, Devanagari नमस्ते. ",
    "Astral: \U0001d518\U0001d52b\U0001d526\U0001d520 \U0001d4b3 🀄 𐍈 𓀀. ",
    "Markup <b>&amp;</b> \"quoted\" 'text'. ",
    "\n",
]
