package randscreen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// frame is how a dialog is set off from what is above it.
type frame int

const (
	frameRule  frame = iota // a rule across the screen over it, as Claude Code draws its dialogs
	frameBox                // a box around it
	framePlain              // nothing: a block of its own, blank rows or a banner above it
)

// keyNames are keys a random hint names.
var keyNames = []string{"Enter", "Esc", "Tab", "shift+Tab", "ctrl+e", "ctrl+g", "↑/↓", "←/→", "Space", "n",
	"y/n", "Backspace", "Tab/Arrow keys", "PgDn", "alt+r"}

// inner is a dialog's rows inside its frame, text starting at column 0,
// and what they must be read as.
type inner struct {
	rows []row
}

func (in *inner) add(role role, text string) { in.rows = append(in.rows, row{text: text, role: role}) }

func (in *inner) blank() { in.add(roleBlank, "") }

// drawDialog draws a random dialog at the bottom of the screen and fills s
// with what it must be read as. ok is false when its menu and footer alone
// are taller than the screen: Claude keeps a menu in sight, and cuts the
// text above it.
func drawDialog(r *rand.Rand, s *Screen) (rows []row, ok bool) {
	s.Dialog = true
	fr := frame(r.IntN(3))
	hasMenu := r.IntN(2) == 0
	hasKeys := !hasMenu || r.IntN(3) > 0
	m := 1 + r.IntN(2) // the margin of a rule's or a plain dialog's text
	boxLeft, boxWidth := 0, s.Cols
	width := s.Cols - 2*m // the text's width
	if fr == frameBox {
		boxWidth = min(s.Cols, 30+r.IntN(s.Cols-29))
		boxLeft = r.IntN(s.Cols - boxWidth + 1)
		width = boxWidth - 4
	}
	edge := fr == frameBox && r.IntN(4) == 0
	keysOutside := fr == frameBox && hasKeys && r.IntN(2) == 0
	shape := []string{"rule", "box", "plain"}[fr]

	var in inner
	// The title.
	var title []string
	for {
		title = words(r, 1+r.IntN(7), width, true)
		if !edge || cells(strings.Join(title, " ")) <= boxWidth-8 {
			break
		}
	}
	s.Title = strings.Join(title, " ")
	if !edge {
		for _, l := range wrap(title, width) {
			in.add(roleTitle, l)
		}
		in.blank()
	}
	// The body, whole or scrolled behind markers.
	var body []string
	paragraphs := r.IntN(4)
	if r.IntN(5) == 0 {
		paragraphs = 3 + r.IntN(6) // taller than many screens
	}
	for p := range paragraphs {
		if p > 0 {
			body = append(body, "")
		}
		body = append(body, wrap(words(r, 1+r.IntN(40), width, false), width)...)
	}
	scroll := len(body) > 6 && r.IntN(2) == 0
	if scroll {
		shape += "+scroll"
		from := 1 + r.IntN(len(body)/2)
		n := 2 + r.IntN(max(1, min(len(body)-from-1, s.Rows/4)))
		n = min(n, len(body)-from)
		in.add(roleMarker, fmt.Sprintf("↑ %d more lines", from))
		for _, l := range body[from : from+n] {
			in.add(lineRole(l), l)
		}
		if rest := len(body) - from - n; rest > 0 {
			in.add(roleMarker, fmt.Sprintf("↓ %d more lines", rest))
		}
		in.blank()
	} else if len(body) > 0 {
		for _, l := range body {
			in.add(lineRole(l), l)
		}
		in.blank()
	}
	// The menu.
	if hasMenu {
		shape += "+menu"
		if r.IntN(2) == 0 {
			for _, l := range wrap(words(r, 1+r.IntN(12), width, false), width) {
				in.add(roleBody, l)
			}
		}
		drawMenu(r, &in, s, width)
		if fr == framePlain && r.IntN(3) == 0 {
			in.blank()
			in.add(roleUnder, strings.Repeat("╌", width))
			for i := range 1 + r.IntN(4) {
				in.add(roleUnder, fmt.Sprintf(" %d  %s", i+1, strings.Join(words(r, 2, width-8, true), " ")))
			}
			in.add(roleUnder, strings.Repeat("╌", width))
			for _, l := range wrap(strings.Fields("Syntax theme: Monokai Extended (ctrl+t to disable)"), width-1) {
				in.add(roleUnder, " "+l)
			}
		}
	}
	// The footer, inside the frame or under a box.
	var footer []row
	if hasKeys {
		shape += "+keys"
		if hasMenu && r.IntN(2) == 0 || !hasMenu && len(in.rows) > 0 && in.rows[len(in.rows)-1].role != roleBlank {
			in.blank()
		}
		for _, l := range drawKeys(r, s, width) {
			footer = append(footer, row{text: l, role: roleFooter})
		}
		if !keysOutside {
			in.rows = append(in.rows, footer...)
			footer = nil
		}
	}
	for len(in.rows) > 0 && in.rows[len(in.rows)-1].role == roleBlank {
		in.rows = in.rows[:len(in.rows)-1]
	}
	if edge {
		shape += "+edge"
	}

	// The frame around the rows, and what is above it.
	switch fr {
	case frameRule:
		rows = append(rows, row{text: strings.Repeat("─", s.Cols), role: roleFrame})
		rows = append(rows, indent(in.rows, m)...)
	case frameBox:
		rows = boxed(r, in.rows, boxLeft, boxWidth, edge, s.Title)
		for _, f := range footer {
			f.text = strings.Repeat(" ", boxLeft+1+r.IntN(2)) + f.text
			rows = append(rows, f)
		}
	case framePlain:
		rows = indent(in.rows, m)
	}
	foot := len(rows)
	for i, rw := range rows {
		if rw.role == roleMenu || rw.role == roleFooter {
			foot = len(rows) - i
			break
		}
	}
	if foot+2 > s.Rows {
		return nil, false
	}
	return place(r, s, rows, fr, shape), true
}

// lineRole is the role of a body line: a paragraph's gap is blank.
func lineRole(l string) role {
	if l == "" {
		return roleBlank
	}
	return roleBody
}

// drawMenu adds a menu of 2 to 6 options: numbered or not, with
// checkboxes, or with the current value marked "✔" before its label. Only
// numbered or boxed labels wrap: an unnumbered label's next line would sit
// where an option begins.
func drawMenu(r *rand.Rand, in *inner, s *Screen, width int) {
	n := 2 + r.IntN(5)
	numbered := r.IntN(2) == 0
	boxes := r.IntN(5) == 0
	slot := !numbered && !boxes && r.IntN(4) == 0
	current := r.IntN(n)
	s.Focus = r.IntN(n)
	for i := range n {
		prefix := ""
		if numbered {
			prefix = fmt.Sprintf("%d. ", i+1)
		}
		box := ""
		if boxes {
			box = []string{"[ ] ", "[✔] "}[r.IntN(2)]
		}
		mark := ""
		if slot {
			mark = "  "
			if i == current {
				mark = "✔ "
			}
		}
		lead := cells(prefix + box + mark)
		room := width - 2 - lead
		wraps := (numbered || boxes) && r.IntN(3) == 0
		var label []string
		for {
			label = words(r, 1+r.IntN(4), room, true)
			if wraps {
				label = append(label, words(r, 4+r.IntN(12), room, true)...)
			}
			if wraps || cells(strings.Join(label, " ")) <= room {
				break
			}
		}
		lines := wrap(label, room)
		s.Options = append(s.Options, box+strings.Join(label, " "))
		pointer := "  "
		if i == s.Focus {
			pointer = "❯ "
		}
		in.rows = append(in.rows, row{text: pointer + prefix + mark + box + lines[0], role: roleMenu, focus: i == s.Focus})
		for _, l := range lines[1:] {
			in.add(roleMenu, strings.Repeat(" ", 2+lead)+l)
		}
	}
}

// drawKeys makes a footer of 1 to 4 key hints, wrapped at width, and adds
// them to s.
func drawKeys(r *rand.Rand, s *Screen, width int) []string {
	for {
		s.Keys = nil
		var hints []string
		for i := range 1 + r.IntN(4) {
			k := Key{Key: keyNames[r.IntN(len(keyNames))], Does: strings.Join(words(r, 1+r.IntN(5), width, true), " ")}
			if i == 0 && k.Key == "Enter" && strings.HasPrefix(k.Does, "select") || strings.Contains(k.Does, "interrupt") {
				continue // a form's footer; Claude at work
			}
			hint := k.Key + " to " + k.Does
			if i == 0 && r.IntN(5) == 0 {
				hint = "Press " + hint
				if r.IntN(2) == 0 {
					hint += "…"
				}
			}
			s.Keys = append(s.Keys, k)
			hints = append(hints, hint)
		}
		if len(hints) == 0 {
			continue
		}
		lines := wrap(strings.Fields(strings.Join(hints, " · ")), width)
		if len(lines) <= 5 {
			return lines
		}
	}
}

// indent puts rows m columns in.
func indent(rs []row, m int) []row {
	out := make([]row, len(rs))
	for i, rw := range rs {
		out[i] = rw
		if rw.text != "" {
			out[i].text = strings.Repeat(" ", m) + rw.text
		}
	}
	return out
}

// boxed draws rows in a box width columns wide from column left, one
// column of padding inside its sides, the title in its top edge if edge.
func boxed(r *rand.Rand, rs []row, left, width int, edge bool, title string) []row {
	tl, tr, bl, br := "╭", "╮", "╰", "╯"
	if r.IntN(3) == 0 {
		tl, tr, bl, br = "┌", "┐", "└", "┘"
	}
	sp := strings.Repeat(" ", left)
	top := tl + strings.Repeat("─", width-2) + tr
	if edge {
		t := "─ " + title + " "
		top = tl + t + strings.Repeat("─", width-2-cells(t)) + tr
	}
	out := []row{{text: sp + top, role: roleFrame}}
	for _, rw := range rs {
		rw.text = sp + "│ " + pad(rw.text, width-4) + " │"
		out = append(out, rw)
	}
	return append(out, row{text: sp + bl + strings.Repeat("─", width-2) + br, role: roleFrame})
}

// place puts a dialog's rows at the bottom of the screen under what fits
// above them, and works out what it must be read as: a dialog taller than
// the screen shows its foot, its top above the screen, now and then with
// "↑ N more lines" over its footer or menu as Claude Code draws it.
func place(r *rand.Rand, s *Screen, rows []row, fr frame, shape string) []row {
	lead := 0
	if fr == framePlain {
		lead = 1 // a blank row at least: a plain dialog on the top row would read as cut
	}
	cutOff := false
	if len(rows)+lead > s.Rows {
		rows, cutOff = cut(r, rows, s.Rows, lead, fr)
	}
	if cutOff {
		shape += "+cut"
		s.Cut, s.Title = true, ""
	} else {
		rows = append(background(r, s.Rows-len(rows), fr), rows...)
	}
	s.Shape = shape
	// The body: what is between the title and the menu or footer, and
	// with the top cut, the title's lines in sight too.
	var body []string
	for _, rw := range rows {
		if rw.role == roleMenu || rw.role == roleFooter {
			break
		}
		if rw.role == roleBody || s.Cut && rw.role == roleTitle {
			body = append(body, inside(rw.text))
		}
	}
	s.Body = strings.Join(body, "\n")
	return rows
}

// inside is a row's text without a box's sides.
func inside(t string) string {
	t = strings.TrimSpace(t)
	if strings.HasPrefix(t, "│") && strings.HasSuffix(t, "│") {
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "│"), "│"))
	}
	return t
}

// cut keeps the last n rows of a dialog taller than the screen, or all of
// them when they come to fit. The top row kept is never blank, so that it
// reads as cut: a dialog with no frame in sight whose top row is blank
// could begin there. A paragraph's gap is left out instead.
func cut(r *rand.Rand, rows []row, n, lead int, fr frame) ([]row, bool) {
	if fr != frameBox && r.IntN(2) == 0 {
		// Claude's marker over the foot: over the footer, or the menu's
		// rows when there is no footer.
		at := len(rows)
		for at > 0 && (rows[at-1].role == roleFooter || rows[at-1].role == roleUnder) {
			at--
		}
		if at == len(rows) {
			for at > 0 && rows[at-1].role == roleMenu {
				at--
			}
		}
		m := 0
		for _, rw := range rows {
			if rw.role == roleTitle || rw.role == roleFooter {
				m = margin(rw.text)
				break
			}
		}
		hidden := max(1, len(rows)+1-n)
		marker := row{text: strings.Repeat(" ", m) + fmt.Sprintf("↑ %d more lines", hidden), role: roleMarker}
		rows = append(append(append([]row(nil), rows[:at]...), marker), rows[at:]...)
	}
	for len(rows)+lead > n {
		top := len(rows) - n
		if fr == frameBox || rows[top].text != "" {
			return rows[top:], true
		}
		gap := top
		for i := len(rows) - 1; i > top; i-- {
			if rows[i].role == roleBlank {
				gap = i
				break
			}
		}
		rows = append(rows[:gap:gap], rows[gap+1:]...)
	}
	return rows, false
}

// margin is the column s's text begins at.
func margin(s string) int {
	return len(s) - len(strings.TrimLeft(s, " "))
}
