import { render } from 'preact';
import { App } from './App';
import { pageData } from './api';
import './style.css';

render(<App page={pageData()} />, document.getElementById('app')!);
