"""The evaluation stage: how strong an agent is, with the luck of the deal taken out.

`arena` plays mirrored seats (`openlandlord eval`), `league` runs round robins with an Elo
ladder (`openlandlord league`), `stats` holds the paired bootstrap and Bradley-Terry,
`dealsets` the committed evaluation deals and the seed range reserved for them, `ledger`
the JSON-lines record of every result, `report` the markdown + PNG reports.
"""
