#ifndef COWATCH_CNCURSES_SHIM_H
#define COWATCH_CNCURSES_SHIM_H
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <stdio.h>
#include <wchar.h>
#include <sys/ioctl.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

/* Helpers for what Swift cannot import (function-like macros, globals that Swift 6
   treats as shared mutable state). Only TerminalFront's curses thread calls them. */

static inline WINDOW *cowatch_stdscr(void) { return stdscr; }

static inline int cowatch_color_pair(int n) { return (int)COLOR_PAIR(n); }

static inline unsigned int cowatch_a_normal(void) { return (unsigned int)A_NORMAL; }
static inline unsigned int cowatch_a_bold(void) { return (unsigned int)A_BOLD; }
static inline unsigned int cowatch_a_dim(void) { return (unsigned int)A_DIM; }
static inline unsigned int cowatch_a_reverse(void) { return (unsigned int)A_REVERSE; }
static inline unsigned int cowatch_a_underline(void) { return (unsigned int)A_UNDERLINE; }

static inline void cowatch_getmaxyx(WINDOW *w, int *rows, int *cols) {
  int y, x;
  getmaxyx(w, y, x);
  *rows = y;
  *cols = x;
}

/* The window size of a terminal file descriptor, 0 on success. */
static inline int cowatch_winsize(int fd, int *rows, int *cols) {
  struct winsize ws;
  if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return -1;
  *rows = ws.ws_row;
  *cols = ws.ws_col;
  return 0;
}

/* Draws one cell: a spacing character followed by up to four combining characters
   (a zero-terminated array), with attributes and a colour pair. */
static inline int cowatch_put_cell(
    int y, int x, const wchar_t *wcs, unsigned int attrs, short pair) {
  cchar_t cc;
  if (setcchar(&cc, wcs, (attr_t)attrs, pair, NULL) != OK) return ERR;
  return mvwadd_wch(stdscr, y, x, &cc);
}

/* Checks TERM the way newterm would, without letting ncurses exit: returns 1 when the
   terminal is known and can address the cursor, 0 when unknown, -1 when the terminfo
   database is missing, -2 when it cannot position the cursor (e.g. "dumb"). */
static inline int cowatch_check_terminal(const char *term, int fd) {
  int err = 0;
  if (setupterm((char *)term, fd, &err) != OK) {
    return err == -1 ? -1 : 0;
  }
  char *cup = tigetstr("cup");
  int ok = (cup != NULL && cup != (char *)-1);
  del_curterm(cur_term);
  return ok ? 1 : -2;
}

#endif
