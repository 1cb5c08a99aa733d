" Vim syntax file for Kite (.kite), the parallel task language compiled by
" kitec. Install: copy or link editors/vim into ~/.vim (or add it to
" 'runtimepath'); ftdetect/kite.vim sets the filetype of *.kite files.
" tests/editors/check-editors.py checks that every keyword and operator of
" grammar/Kite.g4 appears here.

if exists("b:current_syntax")
  finish
endif

syn keyword kiteConditional if else case default
syn keyword kiteRepeat      for map while
syn keyword kiteStatement   return then
syn keyword kiteKeyword     task new
syn keyword kiteStructure   struct union
syn keyword kiteBoolean     true false
syn keyword kiteType        int long float double bool unit array range future
syn keyword kiteBuiltin     print length abs min max sqrt exp log sin cos floor pow hash
syn keyword kiteBuiltin     atomic_add atomic_min atomic_max atomic_cas

" Operators and punctuation, listed one by one (very nomagic: only \| is
" special). `<-` assigns, `=` declares. They come before strings and comments:
" of the items that match at one place, the last defined wins, so `//` starts
" a comment rather than two divisions.
syn match kiteOperator  "\V<-\|<<\|>>\|<=\|>=\|==\|!=\|&&\|||\|<\|>\|=\|+\|-\|*\|/\|%\|!\|~\|&\|^\||"
syn match kiteDelimiter "\V(\|)\|{\|}\|[\|]\|,\|:\|;\|."

" Numbers: 42, 0x2A, 42L, 1.5, 1e-3, 1.5f.
syn match kiteNumber "\<\d\+[lL]\=\>"
syn match kiteNumber "\<0[xX]\x\+[lL]\=\>"
syn match kiteFloat  "\<\d\+\.\d\+\([eE][+-]\=\d\+\)\=[fF]\=\>"
syn match kiteFloat  "\<\d\+[eE][+-]\=\d\+[fF]\=\>"

" C's escapes: simple, octal (1 to 3 digits), hexadecimal; any other is an error.
syn match  kiteEscapeError contained "\\."
syn match  kiteEscape  contained #\\\(\o\{1,3}\|x\x\+\|['"?\\abfnrtv]\)#
syn region kiteString  start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ contains=kiteEscape,kiteEscapeError

" kite-test's directives in a program's leading comment block.
syn match  kiteDirective contained "\(^\s*//\s*\)\@<=\(expect-unordered\|expect-error\|expect\|run\|compile-error\|compile-warning\)\>:\="
syn region kiteComment start="//" end="$" contains=kiteDirective,kiteTodo
syn region kiteComment start="/\*" end="\*/" contains=kiteTodo
syn keyword kiteTodo contained TODO FIXME XXX

hi def link kiteConditional Conditional
hi def link kiteRepeat      Repeat
hi def link kiteStatement   Statement
hi def link kiteKeyword     Keyword
hi def link kiteStructure   Structure
hi def link kiteBoolean     Boolean
hi def link kiteType        Type
hi def link kiteBuiltin     Function
hi def link kiteNumber      Number
hi def link kiteFloat       Float
hi def link kiteString      String
hi def link kiteEscape      SpecialChar
hi def link kiteEscapeError Error
hi def link kiteComment     Comment
hi def link kiteDirective   PreProc
hi def link kiteTodo        Todo
hi def link kiteOperator    Operator
hi def link kiteDelimiter   Delimiter

let b:current_syntax = "kite"
