/*
 * Commit messages as git prepares them: cleanup modes (git's
 * strbuf_stripspace and cleanup_message), Signed-off-by trailers.
 * Pure functions over caller-owned buffers; thread-safe.
 */
#ifndef FGIT_MESSAGE_H
#define FGIT_MESSAGE_H

struct fgit_buf;

enum fgit_cleanup_mode {
	FGIT_CLEANUP_VERBATIM = 0,	/* as it is */
	FGIT_CLEANUP_WHITESPACE,	/* trailing spaces, blank-line runs, leading/trailing blank lines */
	FGIT_CLEANUP_STRIP,		/* the same, and comment lines removed */
	FGIT_CLEANUP_SCISSORS,		/* whitespace, and everything from the scissors line on */
};

/*
 * Clean msg in place.  comment_char: core.commentChar ('#').  With
 * FGIT_CLEANUP_STRIP, lines starting with comment_char are dropped; with
 * SCISSORS, the "<c> ------------------------ >8 ------------------------"
 * line and what follows.  Returns 0 or FGIT_ENOMEM.
 */
int fgit_message_cleanup(struct fgit_buf *msg, enum fgit_cleanup_mode mode, char comment_char);

/*
 * Append "Signed-off-by: <ident>" (ident is "Name <email>") as git's
 * append_signoff does: nothing when the last trailer line is already that
 * one; no blank line before it when the message ends with a trailer block;
 * a blank line otherwise.  Returns 0 or FGIT_ENOMEM.
 */
int fgit_message_add_signoff(struct fgit_buf *msg, const char *ident, char comment_char);

#endif
