" *.kite files are Kite programs (editors/vim/syntax/kite.vim).
autocmd BufRead,BufNewFile *.kite setfiletype kite
