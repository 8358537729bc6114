-- What a maker's strategies can really pay out: Aqua pulls a swap's output from the maker's wallet, so a
-- strategy pays at most the smaller of its virtual balance, the wallet's balance of the token and its
-- allowance to Aqua, and one wallet and one allowance serve all of a maker's strategies. The indexer
-- reads the wallets of the makers with open balances (indexer/walletReader.ts): least recently read first,
-- a bounded number per run.
CREATE TABLE maker_wallets (
  chain_key text NOT NULL,
  maker text NOT NULL,
  token text NOT NULL,
  balance numeric(78,0) NOT NULL,
  allowance numeric(78,0) NOT NULL,
  read_at timestamptz NOT NULL,
  PRIMARY KEY (chain_key, maker, token)
);

-- Per chain and token, the pullable sum over makers (each maker's open virtual balances capped by its
-- wallet and allowance), as of the last wallet read: the stats roll-up reads these few rows.
CREATE TABLE pullable_balances (
  chain_key text NOT NULL,
  token text NOT NULL,
  symbol text,
  decimals integer,
  amount numeric(78,0) NOT NULL,
  computed_at timestamptz NOT NULL,
  PRIMARY KEY (chain_key, token)
);
