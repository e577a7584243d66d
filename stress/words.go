package stress

import (
	"fmt"
	"strings"
	"unicode/utf16"
)

var headers = []string{
	"Database", "Auth", "Layout", "Approach", "Naming", "Tests", "Deploy", "Cache", "Format",
	"API style", "Storage", "Queue", "Logging", "Runtime", "Scope", "Priority",
	"数据库", "架构", "🚀 Deploy", "テスト", "Next", "Submit", "Review", "Q1", "1. Yes",
}

var nouns = []string{
	"database", "queue", "cache", "test runner", "log format", "deployment target", "auth provider",
	"naming scheme", "API style", "storage backend", "build tool", "release cadence",
}

var longTails = []string{
	"given that the team is small, the budget is fixed and we must ship before the end of the quarter",
	"considering the constraints of the payments service, its latency budget and the on-call rota",
	"knowing that whatever we choose will be hard to change later and that the migration path matters",
}

func (g *generator) questionText() string {
	g.serial++
	n := g.serial
	noun := g.pick(nouns)
	n10 := 10
	if g.gen >= Scripts {
		n10 = 11
	}
	switch g.r.IntN(n10) {
	case 10:
		return fmt.Sprintf(g.pick([]string{"أي %s نستخدم للجزء %d؟", "באיזה %s נשתמש בחלק %d?", "भाग %[2]d के लिए कौन सा %[1]s?",
			"ส่วนที่ %[2]d ใช้ %[1]s ไหน?"}), noun, n)
	case 0:
		return fmt.Sprintf("我们应该为第%d项使用哪个%s？🚀", n, g.pick([]string{"数据库", "框架", "方案"}))
	case 1, 2:
		return fmt.Sprintf("Which %s should we adopt for item %d, %s?", noun, n, g.pick(longTails))
	case 3:
		return fmt.Sprintf("Review your answers about the %s (%d)?", noun, n)
	case 4:
		return fmt.Sprintf("1. Which %s? (%d)", noun, n)
	case 5:
		return fmt.Sprintf("Which %s should we use for part %d?\nWe need to decide today.", noun, n)
	default:
		return fmt.Sprintf("Which %s should we use for part %d?", noun, n)
	}
}

var plainLabels = []string{
	"PostgreSQL", "SQLite", "MongoDB", "Redis", "Kafka", "RabbitMQ", "None", "Yes", "No", "Later",
	"Blue-green", "Canary", "Rolling", "camelCase", "snake_case", "kebab-case", "JSON", "YAML", "TOML",
	"Go", "Rust", "Python", "Weekly", "Monthly", "Auth", "Export", "Search", "API", "Dark", "Light",
}

var longLabels = []string{
	"Blue-green deployments on two identical Kubernetes clusters behind a global load balancer",
	"A single shared PostgreSQL instance with logical replication to a read replica",
	"Keep the current setup and revisit the question after the next quarterly planning",
	"Write everything to an append-only log and derive the views from it nightly",
}

var cjkLabels = []string{"数据库 分离 🚀", "单体 📦", "Mixed 混合 ✅", "テスト駆動", "🙂 Happy path", "关系型", "文档型 📄"}

// sequenceLabels hold what terminals and width tables may measure apart:
// emoji joined by ZWJ, a variation selector 16 on a character drawn narrow
// by default, a flag, a skin tone, a keycap and a combining accent.
var sequenceLabels = []string{
	"👨\u200d💻 Dev laptop", "⚠️ Risky path", "🇯🇵 Tokyo region", "👍🏽 Fine by me", "❤️ Favourite",
	"1️⃣ First", "Cafe\u0301 au lait", "✔️ Done", "🧑\u200d🤝\u200d🧑 Pairing",
}

// lookalikes imitate the rows and marks of Claude's own form.
var lookalikes = []string{
	"1. Yes", "2. No", "Submit answers", "Submit", "Next", "Cancel", "[ ] maybe", "[✔] done", "❯ x",
	"Type something", "Type something.", "Chat about this", "→ arrow", "● dot", "☐ box", "☒ ticked",
	"Review your answers", "Enter to select", "↓ 4. more", "(no option selected)",
}

var commaLabels = []string{
	"Yes, and always", "No, never", "Maybe, later, perhaps", `Say "hi"`, `"Quoted"`, "A, B", "Worker, pool",
}

var descriptions = []string{
	"", "", "Relational, robust", "Embedded, simple", "Document store", "The default choice",
	"2. Not an option, just a description", "Fast to start with, slower to change later; most teams pick it when unsure",
	"数据库说明 🚀", "❯ not a pointer", "[ ] not a box", "Enter to select · not a footer",
}

// sequenceDescriptions and sequenceHeaders are drawn with descriptions
// and headers when the generator draws emoji sequences.
var (
	sequenceDescriptions = []string{"⚠️ Read this first", "For the 👩\u200d🚀 on call"}
	sequenceHeaders      = []string{"⚠️ Risk"}
)

// markHeaders hold the marks of Claude's tab row and header chip: a tab
// title starting with a chip, an arrow at either end (generation Marks).
var markHeaders = []string{"✔ Done", "☐ Todo", "☒ Closed", "Next →", "← Back"}

// spaceHeaders and spaceLabels hold white space at an end or two spaces
// inside, and headers ", " or a quote: 2.1.266 and later draw such a header
// as a JSON string, and show a label trimmed, its spaces made one
// (generation Spaces).
var (
	spaceHeaders = []string{" Space ", "Two  words", `Say "hi"`, "A, B", "Tail "}
	spaceLabels  = []string{"  Leading", "Trailing  ", "Two  spaces", " Both ", "A  B,  C"}
)

// scriptLabels, scriptHeaders and scriptDescriptions hold other scripts and
// invisible characters (generation Scripts). 2.1.266 and later draw a soft
// hyphen, a zero-width space, a word joiner or U+FEFF as U+FFFD and leave a
// direction mark out; 2.1.321 and older measure a Devanagari vowel sign as
// part of its letter.
var (
	scriptLabels = []string{
		"ที่นี่ ที่นั่น", "العربية", "עברית", "نیم\u200cفاصله", "한국어 선택", "ＡＢＣ", "zero\u200bwidth",
		"soft\u00adhyphen", "word\u2060joiner", "BOM\ufeff here", "\u200fRTL mark", "no\u00a0break", "हिन्दी में", "नमस्ते",
	}
	scriptHeaders      = []string{"ไทย", "한국어", "हिन्दी", "עברית", "عربي", "Zero\u200bW", "soft\u00adhy"}
	scriptDescriptions = []string{"مرحبا بالعالم", "שלום עולם", "ภาษาไทย อ่านง่าย", "a zero\u200bwidth space inside", "हिन्दी विवरण"}
)

func (g *generator) label(used map[string]bool) string {
	seq := g.gen >= Sequences
	for {
		var l string
		n := 20 // the generator before emoji sequences drew no sequenceLabels
		if seq {
			n = 21
		}
		if g.gen >= Spaces {
			n = 22 // p == 21: spaceLabels
		}
		if g.gen >= Scripts {
			n = 24 // p == 22, 23: scriptLabels
		}
		switch p := g.r.IntN(n); {
		case p < 9:
			l = g.pick(plainLabels)
		case p < 11:
			l = g.pick(longLabels)
		case p < 13:
			l = g.pick(cjkLabels)
		case seq && p < 14:
			l = g.pick(sequenceLabels)
		case seq && p < 18, !seq && p < 17:
			l = g.pick(lookalikes)
		case p == 21:
			l = g.pick(spaceLabels)
		case p >= 22:
			l = g.pick(scriptLabels)
		default:
			l = g.pick(commaLabels)
		}
		if !used[l] {
			used[l] = true
			return l
		}
	}
}

var previews = []string{
	"+------+--------+\n| nav  | main   |\n|      |        |\n+------+--------+",
	"+---------------+\n| nav           |\n+---------------+\n| main          |",
	"func main() {\n\tfmt.Println(\"hello\")\n}",
	"just content",
	"SELECT id, name\n  FROM users\n WHERE active;",
	"┌──────┐\n│ box  │\n└──────┘",
	"1. Yes\n2. No\n❯ 3. Not a menu",
	"数据库 🚀\n第二行",
	"a very long line of preview text that will not fit in the preview box of a narrow terminal and has to wrap or be cut",
}

func (g *generator) preview() string {
	if g.chance(0.15) {
		var b strings.Builder
		for i := 0; i < 10+g.r.IntN(30); i++ {
			fmt.Fprintf(&b, "line %d of a long preview\n", i+1)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	return g.pick(previews)
}

func (g *generator) header() string {
	for {
		h := g.pick(g.list(g.list(g.list(g.list(headers, Sequences, sequenceHeaders), Marks, markHeaders), Spaces, spaceHeaders),
			Scripts, scriptHeaders))
		if len(utf16.Encode([]rune(h))) <= 12 {
			return h
		}
	}
}

func (g *generator) question(preview bool) Question {
	q := Question{Question: g.questionText(), Header: g.header(), MultiSelect: g.chance(0.35)}
	n := 2 + g.r.IntN(3)
	used := map[string]bool{}
	for i := 0; i < n; i++ {
		o := Option{Label: g.label(used), Description: g.pick(g.list(g.list(descriptions, Sequences, sequenceDescriptions),
			Scripts, scriptDescriptions))}
		if preview && (i == 0 || g.chance(0.85)) {
			o.Preview = g.preview()
		}
		q.Options = append(q.Options, o)
	}
	return q
}

func (g *generator) answer(q Question) Answer {
	labels := make([]string, len(q.Options))
	for i, o := range q.Options {
		labels[i] = o.Label
	}
	switch {
	case q.MultiSelect:
		g.r.Shuffle(len(labels), func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
		return Answer{Select: labels[:1+g.r.IntN(len(labels))]}
	case !q.HasPreview() && g.chance(0.2):
		return Answer{Type: g.pick(g.list(typed, Typed, scriptTyped))}
	}
	a := Answer{Select: []string{labels[g.r.IntN(len(labels))]}}
	if q.HasPreview() && g.chance(0.5) {
		a.Notes = g.pick(g.list(notes, Typed, scriptNotes))
	}
	return a
}

var typed = []string{
	"We use SQLite for now", "snake_case, like the rest of the repo", "Neither; ask again next week",
	`Use "both" where it matters`, "先用 SQLite 🚀", "1. Yes", "Submit answers",
}

var notes = []string{"keep it collapsible", "smaller, please", "and dark mode, too", "见设计稿 🚀", `"quoted" note`}

// scriptTyped and scriptNotes are typed text in other scripts (generation
// Typed), each something the screen can show: no virama, nukta or Thai
// vowel above, which get no cell, and no invisible character.
var (
	scriptTyped = []string{"किताब पढो", "कौन सा? यह वाला", "ทำงาน", "العربية أولا", "עברית קודם", "한국어로 해주세요", "ＳＱＬｉｔｅ"}
	scriptNotes = []string{"किताब पढो", "ทำงาน", "العربية", "한국어로"}
)

func (g *generator) chatText() string {
	return fmt.Sprintf("chat %d-%d: we should talk about this first", g.session, g.serial)
}
