"""``polybook translate``: machine drafts of what a port left to translate, behind draft marks.

:mod:`.blocks` finds the blocks to draft and writes drafts in place,
:mod:`polybook.dialect.protect` keeps what is not prose out of an engine's sight (the checker's
term search reads the same prose), :mod:`.engines` are the engines behind one interface,
:mod:`.memory` the book's own translations and the kept answers, :mod:`.run` the steps of a run,
:mod:`.accept` the translator's acceptance, :mod:`.commands` the command. See docs/translate.md.
"""
