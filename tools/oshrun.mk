# oshrun: the single-node launcher (a PMIx server host)
